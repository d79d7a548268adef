/**
 * The enabled webhook endpoints of each partition, as the embedded store's group commits last found them, so
 * that a group reads only those of partitions it has not seen (most groups then read nothing on the event
 * loop). The copies need no expiry: a group's batch reads the endpoints again in its own transaction and
 * commits only if it finds the same (events.ts), so a copy gone stale (an endpoint made, changed or removed
 * since, by this process or another) fails one batch, which is run again write by write, and every copy is
 * dropped (`forgetEndpoints`).
 */
import type { CompiledQuery } from 'kysely';
import type { EmbeddedStore } from './open.js';
import type { Db, Mode } from './schema.js';

/** An enabled endpoint, as the fan-out reads it. */
export type Endpoint = { id: string; mode: Mode; entity_id: string; event_types: string };

/** Partitions kept at most; past it the copies start over, read again as groups meet them. */
const MAX_PARTITIONS = 10_000;

const copies = new WeakMap<Db, Map<string, Endpoint[]>>();

/** The key of a partition (a mode never holds a colon). */
export const partitionKey = (mode: string, entityId: string) => `${mode}:${entityId}`;

/**
 * The enabled endpoints of `partitions` (by key) in id order, as `read` would answer for all of them: read
 * for those not seen before (`read` is given just those), from the copies for the others.
 */
export function endpointsOfPartitions<P>(db: Db, store: EmbeddedStore, partitions: ReadonlyMap<string, P>, read: (unseen: ReadonlyMap<string, P>) => CompiledQuery): Endpoint[] {
  let known = copies.get(db);
  if (!known) copies.set(db, (known = new Map()));
  let unseen: Map<string, P> | undefined;
  for (const [key, partition] of partitions) if (!known.has(key)) (unseen ??= new Map()).set(key, partition);
  if (unseen) {
    if (known.size + unseen.size > MAX_PARTITIONS) {
      known.clear();
      unseen = new Map(partitions);
    }
    // Kept only once read: a read that fails leaves no copy saying "none".
    const fresh = new Map<string, Endpoint[]>([...unseen.keys()].map((key) => [key, []]));
    for (const endpoint of store.read(read(unseen)) as Endpoint[]) fresh.get(partitionKey(endpoint.mode, endpoint.entity_id))?.push(endpoint);
    for (const [key, endpoints] of fresh) known.set(key, endpoints);
  }
  const found: Endpoint[] = [];
  for (const key of partitions.keys()) found.push(...known.get(key)!);
  // The order of the batch's own read (`order by id`, SQLite's bytewise order of UTF-8 text).
  return found.length > 1 ? found.sort((a, b) => Buffer.compare(Buffer.from(a.id), Buffer.from(b.id))) : found;
}

/** Drops every copy of `db`'s endpoints: a batch found other endpoints than its copies said. */
export function forgetEndpoints(db: Db): void {
  copies.get(db)?.clear();
}
