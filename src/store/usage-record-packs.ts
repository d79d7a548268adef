/**
 * Raw usage records, packed: a flush writes each partition's records (one mode and entity) of each of its parts
 * as one row of `usage_record_packs`, their values a JSON array of arrays in PACKED_COLUMNS order, beside the
 * pack's first and last record ids. The usage writer's cost was per row and index entry, not per value, so a
 * row per record cost it about twice what a row per partition and flush does (docs/benchmarks.md). Reads find
 * packs by partition and by the range of ids they hold, and unpack them (faces/usage/list-records.ts); `usage_records` stays
 * readable in SQL as a view that unpacks every pack (recordsViewSql), for tools and people who query the store.
 */
import type { UsageRecordPackTable, UsageRecordTable } from './schema.js';

/** A record's values in a pack, in order; mode and entity are the pack's. */
export const PACKED_COLUMNS = [
  'id', 'request_id', 'at', 'key_id', 'face', 'action', 'api_version', 'status', 'error_code', 'latency_ms', 'units', 'cost', 'currency', 'replayed',
] as const satisfies readonly Exclude<keyof UsageRecordTable, 'mode' | 'entity_id'>[];

/** A column of the record left out of PACKED_COLUMNS fails to compile here. */
type Unpacked = Exclude<keyof UsageRecordTable, (typeof PACKED_COLUMNS)[number] | 'mode' | 'entity_id'>;
const everyColumnPacked: [Unpacked] extends [never] ? true : never = true;
void everyColumnPacked;

/** A record's values in PACKED_COLUMNS order, written out: this runs for every record a server answers. */
const packed = (row: UsageRecordTable) => [
  row.id, row.request_id, row.at, row.key_id, row.face, row.action, row.api_version, row.status, row.error_code, row.latency_ms, row.units, row.cost, row.currency, row.replayed,
];

/**
 * One pack per partition of `rows`, in the order the partitions first appear. The recorder's parts hold at most
 * a few hundred records (flush-parts.ts), so a pack does too.
 */
export function packsOf(rows: readonly UsageRecordTable[]): UsageRecordPackTable[] {
  const byPartition = new Map<string, UsageRecordTable[]>();
  for (const row of rows) {
    const partition = `${row.mode}\u0000${row.entity_id}`;
    const found = byPartition.get(partition);
    if (found) found.push(row);
    else byPartition.set(partition, [row]);
  }
  return [...byPartition.values()].map((members) => {
    let first = members[0]!.id;
    let last = first;
    for (const { id } of members) {
      if (id < first) first = id;
      if (id > last) last = id;
    }
    return { mode: members[0]!.mode, entity_id: members[0]!.entity_id, first_id: first, last_id: last, records: JSON.stringify(members.map(packed)) };
  });
}

/** The records of a pack, as rows of `usage_records`. */
export function unpack(pack: Pick<UsageRecordPackTable, 'mode' | 'entity_id' | 'records'>): UsageRecordTable[] {
  return (JSON.parse(pack.records) as unknown[][]).map((values) => {
    const row: Record<string, unknown> = { mode: pack.mode, entity_id: pack.entity_id };
    PACKED_COLUMNS.forEach((column, i) => (row[column] = values[i]));
    return row as unknown as UsageRecordTable;
  });
}

/** The SQL type of each packed column that is not text, as the records' table had them. */
const NOT_TEXT: Partial<Record<(typeof PACKED_COLUMNS)[number], string>> = { status: 'integer', latency_ms: 'double precision', replayed: 'integer' };

type StoreKind = 'sqlite' | 'postgres';
const qualified = (table: string, schema?: string) => (schema ? `${schema}.${table}` : table);

/**
 * The statement that packs the rows of a records' table (as stores kept them before packs), a pack per partition
 * and minute, and writes the packs. `schema`: the usage file's, on SQLite.
 */
export function packTableSql(kind: StoreKind, schema?: string): string {
  const values = PACKED_COLUMNS.join(', ');
  const array = kind === 'sqlite' ? `json_group_array(json_array(${values}))` : `json_agg(json_build_array(${values}) order by id)::text`;
  return `insert into ${qualified('usage_record_packs', schema)} (mode, entity_id, first_id, last_id, records)
    select mode, entity_id, min(id), max(id), ${array} from ${qualified('usage_records', schema)} group by mode, entity_id, substr(at, 1, 16)`;
}

/**
 * The `usage_records` view over the packs, its columns in the order the records' table had them. In SQLite a
 * view may read only tables of its own file: `schema` is the usage file's, where the packs are.
 */
export function recordsViewSql(kind: StoreKind, schema?: string): string {
  const value = (column: (typeof PACKED_COLUMNS)[number]) => {
    const i = PACKED_COLUMNS.indexOf(column);
    if (kind === 'sqlite') return `json_extract(r.value, '$[${i}]') as ${column}`;
    const type = NOT_TEXT[column];
    return type ? `(r.value->>${i})::${type} as ${column}` : `r.value->>${i} as ${column}`;
  };
  const columns = [...PACKED_COLUMNS.slice(0, 4).map(value), 'p.mode as mode', 'p.entity_id as entity_id', ...PACKED_COLUMNS.slice(4).map(value)];
  const unpacked = kind === 'sqlite' ? 'json_each(p.records) r' : 'json_array_elements(p.records::json) r';
  return `create view ${qualified('usage_records', schema)} as select ${columns.join(', ')} from usage_record_packs p, ${unpacked}`;
}
