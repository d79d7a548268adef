/**
 * `usage.events`: raw call records, newest first, paged by id (ids sort by the time they were made, the
 * time of the answer), so a time range is a range of ids and the partition index serves every page.
 */
import { sql } from 'kysely';
import type { UsageEventsPayload, UsageEventsResult } from '../../../generated/server/types.js';
import { ApiError } from '../../core/errors.js';
import { listPage } from '../../core/list-page.js';
import { parseInstant } from '../../store/instant.js';
import type { Db } from '../../store/schema.js';
import { idTimePrefix } from '../../store/secrets.js';
import { toRecord } from './records.js';
import { scopeCondition, type UsageScope } from './scope.js';

export async function listRecords(db: Db, scope: UsageScope, payload: UsageEventsPayload): Promise<UsageEventsResult> {
  const limit = payload.limit ?? 100;
  if (payload.from !== undefined && payload.to !== undefined && !(parseInstant(payload.from) < parseInstant(payload.to))) {
    throw new ApiError('usage_range_invalid', '`from` must come before `to`.', { param: '/payload/from' });
  }
  let query = db.selectFrom('usage_records').selectAll().where(scopeCondition(scope));
  if (payload.from !== undefined) query = query.where('id', '>=', idTimePrefix('use', parseInstant(payload.from)));
  if (payload.to !== undefined) query = query.where('id', '<', idTimePrefix('use', parseInstant(payload.to)));
  if (payload.startingAfter !== undefined) query = query.where('id', '<', payload.startingAfter);
  const rows = await query.orderBy(sql`id`, 'desc').limit(limit + 1).execute();
  return listPage(rows, limit, toRecord);
}
