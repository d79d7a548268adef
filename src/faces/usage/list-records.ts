/**
 * `usage.events`: raw call records, newest first, paged by id (ids sort by the time they were made, the
 * time of the answer), so a time range is a range of ids. Records are kept packed, a partition's records of a
 * flush and span of time in one row (store/usage-record-packs.ts): the partition index serves a page by the
 * packs' newest ids, read newest first from the span of the cursor on, until no pack left can hold a record
 * newer than the page's last; packs written by different processes, or by flushes of records made out of
 * order, may overlap in their ranges of ids.
 */
import type { UsageEventsPayload, UsageEventsResult } from '../../../generated/server/types.js';
import { ApiError } from '../../core/errors.js';
import { listPage } from '../../core/list-page.js';
import { parseInstant } from '../../store/instant.js';
import type { Db, UsageRecordTable } from '../../store/schema.js';
import { idTimePrefix } from '../../store/secrets.js';
import { spanEnd, unpack } from '../../store/usage-record-packs.js';
import { toRecord } from './records.js';
import { scopeCondition, scopePredicate, type UsageScope } from './scope.js';

/** Packs read at a time: a page of the default 100 records takes one or two from a busy partition. */
const PACKS_A_READ = 20;

const newestFirst = (a: UsageRecordTable, b: UsageRecordTable) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

export async function listRecords(db: Db, scope: UsageScope, payload: UsageEventsPayload): Promise<UsageEventsResult> {
  const limit = payload.limit ?? 100;
  if (payload.from !== undefined && payload.to !== undefined && !(parseInstant(payload.from) < parseInstant(payload.to))) {
    throw new ApiError('usage_range_invalid', '`from` must come before `to`.', { param: '/payload/from' });
  }
  const from = payload.from === undefined ? undefined : idTimePrefix('use', parseInstant(payload.from));
  const to = payload.to === undefined ? undefined : idTimePrefix('use', parseInstant(payload.to));
  // Records are taken below the cursor and `to`, whichever is lower.
  const below = payload.startingAfter !== undefined && (to === undefined || payload.startingAfter < to) ? payload.startingAfter : to;
  // A pack holds one span of time: one that holds a record below `below` ends before the next span begins.
  const packsBelow = below === undefined ? undefined : spanEnd(below);
  const wanted = scopePredicate(scope);
  const taken = (row: UsageRecordTable) => (from === undefined || row.id >= from) && (below === undefined || row.id < below) && wanted(row);
  // The newest records found so far, one past the page: its last tells whether a pack can still hold one.
  let page: UsageRecordTable[] = [];
  let before: string | undefined;
  for (;;) {
    let query = db.selectFrom('usage_record_packs').select(['mode', 'entity_id', 'last_id', 'records']).where(scopeCondition(scope, { calls: false }));
    if (from !== undefined) query = query.where('last_id', '>=', from);
    if (below !== undefined) query = query.where('first_id', '<', below);
    if (packsBelow !== undefined) query = query.where('last_id', '<', packsBelow);
    if (before !== undefined) query = query.where('last_id', '<', before);
    const packs = await query.orderBy('last_id', 'desc').limit(PACKS_A_READ).execute();
    for (const pack of packs) {
      // Packs come newest last id first: none from here on holds a record newer than a full page's last.
      if (page.length > limit && pack.last_id < page[limit]!.id) return listPage(page, limit, toRecord);
      page = page.concat(unpack(pack).filter(taken)).sort(newestFirst).slice(0, limit + 1);
    }
    if (packs.length < PACKS_A_READ) return listPage(page, limit, toRecord);
    before = packs.at(-1)!.last_id;
  }
}
