/**
 * Raw usage records, packed: a flush writes the records of each partition (a mode and entity) and span of time
 * (below) in each of its parts as one row of `usage_record_packs`: their values a JSON array of arrays in
 * PACKED_COLUMNS order, beside the pack's first and last record ids. What a record cost the usage writer was
 * its row and index entry, not its values (docs/benchmarks.md, usage-stage). Reads find a partition's packs by
 * the ids they hold and unpack them (faces/usage/list-records.ts); `usage_records` stays readable in SQL as a
 * view that unpacks every pack (recordsViewSql), for tools and people who query the store.
 */
import type { UsageRecordPackTable, UsageRecordTable } from './schema.js';
import { idTime, idTimePrefix } from './secrets.js';

/**
 * A pack holds records of one span of time only: ids that share their first seven time characters, made within
 * the same 32.768 s (2¹⁵ ms). So a record outlives its retention by less than a span, and a read of the records
 * below an id needs only the packs whose last id is below the end of that id's span (spanEnd).
 */
const SPAN_MS = 2 ** 15;
/** The characters of a record id (`use_` and seven time characters) that name its span. */
const SPAN_CHARACTERS = 'use_'.length + 7;
/** The most records a pack holds: the recorder's parts hold no more (flush-parts.ts); migrated packs are cut so. */
const PACK_RECORDS = 500;

/** The smallest id of the span after the one `id` (an id or an id's time prefix) falls in; undefined for text that is no id. */
export function spanEnd(id: string): string | undefined {
  const ms = idTime(id);
  return Number.isNaN(ms) ? undefined : idTimePrefix('use', (Math.floor(ms / SPAN_MS) + 1) * SPAN_MS);
}

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
 * One pack per partition and span of `rows`, in the order they first appear. The recorder's parts hold at most
 * PACK_RECORDS records (flush-parts.ts), so a pack does too.
 */
export function packsOf(rows: readonly UsageRecordTable[]): UsageRecordPackTable[] {
  const byPack = new Map<string, UsageRecordTable[]>();
  /** The rows of the pack the row before went to, and that pack's span. */
  let current: UsageRecordTable[] | undefined;
  let span = '';
  for (const row of rows) {
    // A part's rows come partition by partition (flush-parts.ts): most go with the row before, found without
    // making their pack's key, which would be most of what packing a row allocates.
    if (!current || row.entity_id !== current[0]!.entity_id || row.mode !== current[0]!.mode || span.length !== SPAN_CHARACTERS || !row.id.startsWith(span)) {
      span = row.id.slice(0, SPAN_CHARACTERS);
      const key = `${row.mode}\u0000${row.entity_id}\u0000${span}`;
      current = byPack.get(key);
      if (!current) byPack.set(key, (current = []));
    }
    current.push(row);
  }
  return [...byPack.values()].map((members) => {
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

/** The SQL type of each packed column that is not text, as the records' table had them: PostgreSQL's view casts to it. */
const NOT_TEXT: Partial<Record<(typeof PACKED_COLUMNS)[number], string>> = { status: 'integer', latency_ms: 'double precision', replayed: 'integer' };

type StoreKind = 'sqlite' | 'postgres';
const qualified = (table: string, schema?: string) => (schema ? `${schema}.${table}` : table);

/**
 * The statement that packs the rows of a records' table (as stores kept them before packs), a pack per partition
 * and span of at most PACK_RECORDS records, and writes the packs. `schema`: the usage file's, on SQLite.
 */
export function packTableSql(kind: StoreKind, schema?: string): string {
  const values = PACKED_COLUMNS.join(', ');
  const array = kind === 'sqlite' ? `json_group_array(json_array(${values}))` : `json_agg(json_build_array(${values}) order by id)::text`;
  const span = `substr(id, 1, ${SPAN_CHARACTERS})`;
  return `insert into ${qualified('usage_record_packs', schema)} (mode, entity_id, first_id, last_id, records)
    select mode, entity_id, min(id), max(id), ${array}
    from (select *, ${span} as span, (row_number() over (partition by mode, entity_id, ${span} order by id) - 1) / ${PACK_RECORDS} as part
      from ${qualified('usage_records', schema)}) numbered
    group by mode, entity_id, span, part`;
}

/**
 * The `usage_records` view over the packs, its columns in the order the records' table had them. In SQLite a
 * view may read only tables of its own file: `schema` is the usage file's, where the packs are.
 */
export function recordsViewSql(kind: StoreKind, schema?: string): string {
  const value = (column: (typeof PACKED_COLUMNS)[number]) => {
    const i = PACKED_COLUMNS.indexOf(column);
    if (kind === 'postgres') return NOT_TEXT[column] ? `(r.value->>${i})::${NOT_TEXT[column]} as ${column}` : `r.value->>${i} as ${column}`;
    const extracted = `json_extract(r.value, '$[${i}]')`;
    // JSON writes a whole number without a point: SQLite would read a latency of 12 ms as an integer.
    return `${column === 'latency_ms' ? `cast(${extracted} as real)` : extracted} as ${column}`;
  };
  const columns = [...PACKED_COLUMNS.slice(0, 4).map(value), 'p.mode as mode', 'p.entity_id as entity_id', ...PACKED_COLUMNS.slice(4).map(value)];
  const unpacked = kind === 'sqlite' ? 'json_each(p.records) r' : 'json_array_elements(p.records::json) r';
  return `create view ${qualified('usage_records', schema)} as select ${columns.join(', ')} from usage_record_packs p, ${unpacked}`;
}

/**
 * What makes the view take inserts: a program from before the packs, still running while a newer one migrates
 * the store (processes sharing PostgreSQL, upgraded one at a time), writes its records into `usage_records`; each
 * becomes a pack of its own, rather than failing and being dropped. Statements to run after the view's.
 */
export function recordsViewInsertSql(kind: StoreKind, schema?: string): string[] {
  const values = PACKED_COLUMNS.map((column) => `new.${column}`).join(', ');
  const insert = (array: string) =>
    `insert into usage_record_packs (mode, entity_id, first_id, last_id, records) values (new.mode, new.entity_id, new.id, new.id, ${array});`;
  if (kind === 'sqlite') {
    return [`create trigger ${qualified('usage_records_insert', schema)} instead of insert on usage_records begin ${insert(`json_array(json_array(${values}))`)} end`];
  }
  return [
    `create function usage_records_insert() returns trigger language plpgsql as $$ begin ${insert(`json_build_array(json_build_array(${values}))::text`)} return new; end $$`,
    'create trigger usage_records_insert instead of insert on usage_records for each row execute function usage_records_insert()',
  ];
}
