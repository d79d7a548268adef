/**
 * The usage file: on the embedded store, the tables written after their calls, in long batches of their own
 * (usage records and their rollups, and the event log's order, filled from its pending places), live in a
 * second SQLite file beside the main one, attached to every connection as `usage`, with a writer thread of
 * its own. SQLite lets one transaction at a time write a file: in one file, each usage flush and each fill of
 * the log held the calls' commits for as long as it ran. No call writes these tables (a call's transaction
 * may read them), so the two files are written side by side.
 *
 * A store made before the file existed has these tables in its main file: each is moved at open, in two
 * transactions of one file each (SQLite commits a transaction over two files in WAL mode file by file, so a
 * crash could keep one half of it), each synced before the next begins. The first copies the table into the
 * usage file; the second drops it from the main file. Until the drop commits, the main file's table is the one
 * every query reads (a name is looked up in `main` first), so a stop between them loses nothing, and the next
 * open finds the same rows in both and drops the main file's.
 *
 * Raw usage records were once a table of a row each (`usage_records`); the usage file packs such a table's rows
 * into `usage_record_packs` and puts the view that unpacks them (and takes inserts) in its place
 * (store/usage-record-packs.ts), in one transaction of its own, once both are in the usage file.
 */
import type SQLite from 'better-sqlite3';
import { packTableSql, recordsViewInsertSql, recordsViewSql } from '../usage-record-packs.js';
import { openConnection } from './connection.worker.mjs';

export const USAGE_SCHEMA = 'usage';

/** The store's files: the main one, and the usage file attached to every connection. */
export interface StoreFiles {
  main: string;
  usage: string;
}

/** The usage file's settings, as the main file's (WAL, commits that append without a sync). */
export const USAGE_PRAGMAS = [`${USAGE_SCHEMA}.journal_mode = WAL`, `${USAGE_SCHEMA}.synchronous = NORMAL`];

/**
 * The tables the usage recorder writes (faces/usage/recorder.ts), and its purge; and the event log's order,
 * which the log's filler writes (event-log-fill.ts).
 */
export const USAGE_FILE_TABLES = ['usage_record_packs', 'usage_rollups', 'usage_unit_rollups', 'usage_rollups_coarse', 'usage_unit_rollups_coarse', 'event_log'];

/**
 * Makes sure the usage file holds each of its tables, moving those still in the main file: a store whose
 * usage file is missing, or is another store's, is refused rather than opened without its usage. On a
 * connection of its own, once, when the store opens.
 */
export function moveUsageTables(files: StoreFiles): void {
  const db = openConnection(files.main, [{ schema: USAGE_SCHEMA, path: files.usage }]);
  try {
    db.pragma('busy_timeout = 5000');
    // Each commit is on disk before the next begins: the copy survives even a power loss before the drop.
    for (const schema of ['main', USAGE_SCHEMA]) db.pragma(`${schema}.synchronous = FULL`);
    // Checked before anything moves: a table moved into a usage file that is then refused would be missing
    // from the main file and from the usage file put back beside it.
    const missing = USAGE_FILE_TABLES.filter((table) => !holds(db, 'main', table) && !holds(db, USAGE_SCHEMA, table));
    if (missing.length > 0) {
      throw new Error(
        `The usage file ${files.usage} does not hold ${missing.join(', ')}: it is missing, or it is not the usage file of ${files.main}. Put the two files of the store back together.`,
      );
    }
    for (const table of [...USAGE_FILE_TABLES, UNPACKED_RECORDS]) moveTable(db, table, files);
    packRecords(db);
  } finally {
    db.close();
  }
}

/** Raw usage records as a table of a row each: made so by migration 0006, packed since 0024. */
const UNPACKED_RECORDS = 'usage_records';

/** Packs the rows of the records' table of a row each, if the usage file holds one, and puts the view in its place. */
function packRecords(db: SQLite.Database): void {
  if (!holds(db, USAGE_SCHEMA, UNPACKED_RECORDS)) return;
  db.transaction(() => {
    if (!holds(db, USAGE_SCHEMA, UNPACKED_RECORDS)) return;
    db.exec(packTableSql('sqlite', USAGE_SCHEMA));
    db.exec(`drop table ${USAGE_SCHEMA}.${UNPACKED_RECORDS}`);
    for (const statement of [recordsViewSql('sqlite', USAGE_SCHEMA), ...recordsViewInsertSql('sqlite', USAGE_SCHEMA)]) db.exec(statement);
  }).immediate();
}

function moveTable(db: SQLite.Database, table: string, files: StoreFiles): void {
  // Nearly every open finds the table moved: a read then, without waiting for either file's writer.
  if (!holds(db, 'main', table)) return;
  const quoted = `"${table}"`;
  // Immediate: a write transaction from the start, so that two processes opening the store move a table once.
  const copied = db
    .transaction(() => {
      if (!holds(db, 'main', table)) return false;
      if (holds(db, USAGE_SCHEMA, table)) {
        // A move stopped between its two transactions left a whole copy: the same rows. Other rows mean
        // that one of the files was put back from another time, and neither may be dropped.
        const only = (from: string, other: string) => `select * from ${from}.${quoted} except select * from ${other}.${quoted}`;
        if ((db.prepare(`select exists (${only('main', USAGE_SCHEMA)}) or exists (${only(USAGE_SCHEMA, 'main')}) as differ`).get() as { differ: number }).differ) {
          throw new Error(`Both ${files.main} and its usage file ${files.usage} hold ${table}, with other rows: put the two files of the store back together.`);
        }
        return true;
      }
      // The table first, then its indexes; those SQLite makes for a key (sql null) come with the table.
      const definitions = db
        .prepare(`select type, sql from main.sqlite_master where tbl_name = ? and sql is not null order by type = 'table' desc, name`)
        .all(table) as Definition[];
      for (const definition of definitions) db.exec(inUsageFile(definition));
      db.exec(`insert into ${USAGE_SCHEMA}.${quoted} select * from main.${quoted}`);
      return true;
    })
    .immediate();
  if (copied) db.transaction(() => holds(db, 'main', table) && db.exec(`drop table main.${quoted}`)).immediate();
}

const holds = (db: SQLite.Database, schema: string, table: string) =>
  db.prepare(`select 1 from ${schema}.sqlite_master where type = 'table' and name = ?`).get(table) !== undefined;

interface Definition {
  type: 'table' | 'index';
  sql: string;
}

/** A table's or index's definition, as SQLite keeps it, made to create it in the usage file. */
function inUsageFile({ type, sql }: Definition): string {
  const pattern = type === 'table' ? /^CREATE TABLE (?=")/ : /^CREATE (UNIQUE )?INDEX (?=")/;
  if (!pattern.test(sql)) throw new Error(`The store's definition of a usage ${type} is not one this program can move: ${sql}`);
  return sql.replace(pattern, (head) => `${head}${USAGE_SCHEMA}.`);
}
