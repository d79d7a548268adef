/**
 * A usage flush in parts, each written in a transaction of its own, one after the other, so that a
 * transaction stays small and live followers get a part's records as it commits. A part holds whole
 * partitions (a mode and entity) where it can: every rollup row belongs to one, so a part adds up all of the
 * window's calls of its partitions; its records and their rollups commit together, as exactly as one
 * transaction for the whole flush would.
 */
import { groupBy } from '../../group-by.js';

/**
 * `records` in parts of whole partitions, in the order the partitions first appear and each partition's
 * records in their order, each part of up to `most` records. A partition of more than `most` records is
 * split over consecutive parts (its rollups add up part after part, as exactly, at the cost of an upsert
 * more per rollup row).
 */
export function partsOf<T>(records: readonly T[], partition: (record: T) => string, most: number): T[][] {
  const byPartition = groupBy(records, partition);
  const parts: T[][] = [];
  let part: T[] = [];
  for (const members of byPartition.values()) {
    if (part.length > 0 && part.length + members.length > most) {
      parts.push(part);
      part = [];
    }
    // A partition too large for one part fills parts of its own; its last records start the next part.
    let i = 0;
    for (; members.length - i > most; i += most) parts.push(members.slice(i, i + most));
    for (; i < members.length; i++) part.push(members[i]!);
  }
  if (part.length > 0) parts.push(part);
  return parts;
}
