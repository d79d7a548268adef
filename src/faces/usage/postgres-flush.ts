/**
 * A part of a usage flush on PostgreSQL, written by one prepared statement: its records' packs, what they add to
 * the rollups of every grain, and the notices that announce them (relay.ts). As multi-row inserts, a part was
 * a round trip per statement, and each statement's text, its rows' values written into it, was parsed and
 * planned anew: that cost PostgreSQL more than the writes. Here each table's rows go in as one array per
 * column (`unnest`), so the text is the same for any number of rows and is prepared once per connection
 * (store/prepared-statement.ts); one statement commits alone, all of it or nothing.
 *
 * The rollup rows of each table go in key order (rollups.ts), so that processes adding to the same rows lock
 * them in the same order, and the tables are written in the order the multi-row statements wrote them (the
 * records, then minutes, hours and days, then units): PostgreSQL runs the parts of a `with` in an order of its
 * own choosing (the reverse of the text, as it happens), so each part waits for the one before it, by a
 * condition on that part's returned rows that is checked once before it writes anything.
 */
import { runPrepared } from '../../store/prepared-statement.js';
import type { Db, UsageRecordPackTable } from '../../store/schema.js';
import { packsOf } from '../../store/usage-record-packs.js';
import { LATENCY_COLUMNS } from './latency.js';
import { USAGE_CHANNEL } from './relay.js';
import { rollupWrites, type RecordWithCost, type RollupWrite } from './rollups.js';

/** Every column of a pack: a column added to the table and not here fails to compile. */
const PACK_COLUMNS = Object.keys({ mode: true, entity_id: true, first_id: true, last_id: true, records: true } satisfies Record<keyof UsageRecordPackTable, true>);

/** The type of each column that is not text, in every usage table (migrations.ts, exact-sums-migration.ts). */
const COLUMN_TYPES: Record<string, string> = {
  status: 'integer',
  replayed: 'integer',
  calls: 'integer',
  errors: 'integer',
  latency_ms_sum: 'double precision',
  cost_nanos: 'bigint',
  amount: 'numeric',
  ...Object.fromEntries(LATENCY_COLUMNS.map((column) => [column, 'integer'])),
};

/** The tables' parts of the statement, each with the columns it takes, in the order of its parameters. */
interface Part {
  columns: readonly string[];
  sql: (source: string) => string;
}

const quoted = (columns: readonly string[]) => columns.map((column) => `"${column}"`).join(', ');
/** `source` is the arrays, the closing parenthesis of `unnest` and any condition. */
const inserted = (table: string, columns: readonly string[]) => (source: string) => `insert into ${table} (${quoted(columns)}) select * from unnest(${source}`;

/** The rollups' columns and conflict targets, known from any flush: the writes of no records say them. */
const ROLLUPS: readonly Part[] = rollupWrites([]).map(({ table, key, added }: RollupWrite) => {
  const sets = added.map((column) => `"${column}" = ${table}."${column}" + excluded."${column}"`).join(', ');
  const columns = [...key, ...added];
  return { columns, sql: (source) => `${inserted(table, columns)(source)} on conflict (${quoted(key)}) do update set ${sets}` };
});

const PARTS: readonly Part[] = [{ columns: PACK_COLUMNS, sql: inserted('usage_record_packs', PACK_COLUMNS) }, ...ROLLUPS];

/**
 * The statement: each table's part a data-modifying `with` of its own, after the part before it, and the
 * notices sent once the last is written.
 */
const STATEMENT = (() => {
  let next = 1;
  const arrays = (columns: readonly string[]) => columns.map((column) => `$${next++}::${COLUMN_TYPES[column] ?? 'text'}[]`).join(', ');
  // A condition on no column of the row: PostgreSQL checks it once, before the first row, so the part before runs whole first.
  const after = (i: number) => (i === 0 ? '' : ` where (select count(*) from part${i - 1}) >= 0`);
  const parts = PARTS.map((part, i) => `part${i} as (${part.sql(`${arrays(part.columns)})${after(i)}`)} returning 1)`);
  return `with ${parts.join(',\n')}\nselect pg_notify('${USAGE_CHANNEL}', notice) from unnest($${next}::text[]) as notice${after(PARTS.length)}`;
})();

/**
 * Writes `records`, packed (store/usage-record-packs.ts), what they add to the rollups, and the notices
 * `announce` makes of the packs (payloads on the relay's channel), at once.
 */
export async function writeFlushOnPostgres(db: Db, records: readonly RecordWithCost[], announce: (packs: readonly UsageRecordPackTable[]) => readonly string[] = () => []): Promise<void> {
  const packs = packsOf(records.map(({ row }) => row));
  // One array per column: the packs' by name, the rollups' by place (their rows are values in the order of their columns).
  const parameters: unknown[] = PACK_COLUMNS.map((column) => packs.map((pack) => pack[column as keyof UsageRecordPackTable]));
  for (const { key, added, rows } of rollupWrites(records)) {
    for (let i = 0; i < key.length + added.length; i++) parameters.push(rows.map((row) => row[i]));
  }
  parameters.push(announce(packs));
  await runPrepared(db, 'usage.flush', STATEMENT, parameters);
}
