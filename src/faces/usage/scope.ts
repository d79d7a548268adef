/**
 * What a usage query may read (docs/contract.md § Usage): the key's own mode, and only entities the key may act for. By
 * default the call's entity; `filter.entity` names others (each checked against the key), or `*` for every
 * entity the key may act for. The rest of the filter narrows by face, action, key and status. The same
 * scope and filter become SQL conditions (summary; the partition of events) or a predicate over records (live, events).
 */
import { sql, type RawBuilder } from 'kysely';
import type { UsageFilter } from '../../../generated/server/types.js';
import { ApiError } from '../../core/errors.js';
import type { KeyRecord } from '../../store/keys.js';
import type { Mode, UsageRecordTable } from '../../store/schema.js';

export interface UsageScope {
  mode: Mode;
  /** `*`: every entity of the mode (a key that may act for any entity asked for all of them). */
  entities: '*' | readonly string[];
  filter: UsageFilter;
}

interface Caller {
  mode: Mode;
  entityId: string;
  key: KeyRecord;
}

export function usageScope(ctx: Caller, filter: UsageFilter = {}): UsageScope {
  const asked = filter.entity;
  const allowed = ctx.key.entities;
  let entities: UsageScope['entities'];
  if (asked === undefined) entities = [ctx.entityId];
  else if (asked === '*') entities = allowed;
  else {
    asked.forEach((id, i) => {
      if (allowed !== '*' && !allowed.includes(id)) {
        throw new ApiError('entity_forbidden', `This API key may not read the usage of entity "${id}".`, { param: `/payload/filter/entity/${i}` });
      }
    });
    entities = asked;
  }
  return { mode: ctx.mode, entities, filter };
}

/** The columns a condition names; meter tables and record packs have only the partition. */
export interface ScopeColumns {
  calls: boolean;
}

const inList = (column: string, values: readonly (string | number)[]) =>
  sql<boolean>`${sql.ref(column)} in (${sql.join(values.map((v) => sql`${v}`))})`;

/** The scope and filter as one SQL condition over a usage table (rollups; meters and record packs when `calls` is false). */
export function scopeCondition(scope: UsageScope, { calls }: ScopeColumns = { calls: true }): RawBuilder<boolean> {
  const conditions = [sql<boolean>`${sql.ref('mode')} = ${scope.mode}`];
  if (scope.entities !== '*') conditions.push(inList('entity_id', scope.entities));
  const { face, action, key, status } = scope.filter;
  if (calls) {
    if (face) conditions.push(inList('face', face));
    if (action) conditions.push(inList('action', action));
    if (key) conditions.push(inList('key_id', key));
    if (status) conditions.push(inList('status', status));
  }
  return sql<boolean>`(${sql.join(conditions, sql` and `)})`;
}

/** The scope and filter as a predicate over records as they are written. */
export function scopePredicate(scope: UsageScope): (row: UsageRecordTable) => boolean {
  const entities = scope.entities === '*' ? undefined : new Set(scope.entities);
  const { face, action, key, status } = scope.filter;
  return (row) =>
    row.mode === scope.mode &&
    (!entities || entities.has(row.entity_id)) &&
    (!face || face.includes(row.face)) &&
    (!action || action.includes(row.action)) &&
    (!key || key.includes(row.key_id)) &&
    (!status || status.includes(row.status));
}
