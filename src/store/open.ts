/**
 * Opens the store and brings its schema up to date. The embedded default is one SQLite file under the
 * data directory, in WAL mode so readers never wait for the writer, whose statements run in a thread of
 * their own (`sqlite/dialect.ts`); with a database URL it is PostgreSQL,
 * which several server processes can share. Both run the same migrations and the same typed queries.
 */
import { join } from 'node:path';
import { DEFAULT_MIGRATION_TABLE, Kysely, Migrator, PostgresAdapter, PostgresDialect, sql, type CompiledQuery, type QueryResult } from 'kysely';
import type pg from 'pg';
import type { ModuleMigration } from '../core/face-module.js';
import { migrationSet, type MigrationSet } from './migration-set.js';
import { WorkerSqliteDialect, type BatchOptions, type BatchStatement } from './sqlite/dialect.js';
import { moveUsageTables } from './sqlite/usage-file.js';
import type { Database, Db } from './schema.js';
import { log } from '../core/log.js';
import { makeDirectory } from '../make-directory.js';

export type { BatchStatement };

export interface StoreConfig {
  /** Directory of the embedded SQLite file; unused when `databaseUrl` is set. */
  dataDir: string;
  /** `postgres://…`: keep everything durable in PostgreSQL instead of SQLite. */
  databaseUrl?: string;
  /** Most PostgreSQL connections this process holds at once (default 10). */
  poolSize?: number;
  /** The face modules' migrations, in the order of the modules (the core's are the store's own). */
  migrations: readonly ModuleMigration[];
}

/** Which database a store runs on, for the few queries that differ (row locks). */
export function storeKind(db: Db): 'sqlite' | 'postgres' {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/** Opens the store the configuration names and migrates it to the latest schema. */
export async function openStore(config: StoreConfig): Promise<Db> {
  // Checked before the store is opened: a misnamed migration is a fault of the program, not of the store.
  const migrations = migrationSet(config.migrations);
  const db = config.databaseUrl ? await openPostgres(config.databaseUrl, config.poolSize ?? 10) : openSqlite(config.dataDir);
  try {
    await migrate(db, migrations);
    // The migrations make a new store's usage file tables in its main file, as they did before the usage file was.
    if (!config.databaseUrl) moveUsageTables(storeFiles(config.dataDir));
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return db;
}

/**
 * What the embedded store offers beyond queries: a batch of writes run as one transaction in one message to
 * its writer thread, or to the usage file's (sqlite/usage-file.ts), and reads at once on this thread
 * (sqlite/dialect.ts).
 */
export interface EmbeddedStore {
  writeBatch(statements: readonly BatchStatement[]): Promise<void>;
  writeUsageBatch(statements: readonly BatchStatement[], options?: BatchOptions): Promise<void>;
  usageWriterAlive(): boolean;
  read(query: CompiledQuery): unknown[];
  writeNow(query: CompiledQuery): Promise<QueryResult<unknown>>;
}

const embeddedStores = new WeakMap<Db, EmbeddedStore>();

/**
 * The embedded store behind `db`; undefined for stores where a transaction holds nothing others wait for
 * (PostgreSQL), which run batches as any other transaction.
 */
export function embeddedStore(db: Db): EmbeddedStore | undefined {
  return embeddedStores.get(db);
}

/** The embedded store's files in its data directory: the main one and the usage file (sqlite/usage-file.ts). */
const storeFiles = (dataDir: string) => ({ main: join(dataDir, 'dispatch.sqlite'), usage: join(dataDir, 'dispatch-usage.sqlite') });

function openSqlite(dataDir: string): Db {
  makeDirectory(dataDir);
  const dialect = new WorkerSqliteDialect(storeFiles(dataDir));
  const db = new Kysely<Database>({ dialect });
  embeddedStores.set(db, dialect);
  return db;
}

async function openPostgres(url: string, max: number): Promise<Db> {
  // Loaded here, so that a server on the embedded store starts without loading the PostgreSQL client.
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: url, max });
  // A connection dropped by the server (a restart, a failover) emits 'error'; unhandled, that would end the
  // process. The pool listens only while a connection is idle, so each connection gets a listener of its own
  // for its whole life: a connection lost while a call holds it fails that call's query (answered 503) and is
  // not given back to the pool, which opens a new one for the next query.
  pool.on('error', (error) => log.error({ detail: error.message }, 'PostgreSQL connection lost'));
  pool.on('connect', (client) => client.on('error', (error) => log.error({ detail: error.message }, 'PostgreSQL connection lost during a call')));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  postgresPools.set(db, pool);
  return db;
}

const postgresPools = new WeakMap<Db, pg.Pool>();

/** The connection pool of a PostgreSQL store (for LISTEN, which needs a connection of its own, and prepared statements); undefined for SQLite. */
export function postgresPool(db: Db): pg.Pool | undefined {
  return postgresPools.get(db);
}

/**
 * Applies pending migrations. On PostgreSQL, Kysely's migrator holds an advisory lock while it reads the
 * applied migrations and runs the rest in one transaction, so processes starting together on one database
 * apply each migration exactly once. A module served for the first time on an existing store runs its
 * migrations although newer ones ran before (they are its own tables); a store that ran a migration this
 * program does not have is refused before anything runs.
 */
export async function migrate(db: Db, migrations: MigrationSet): Promise<void> {
  const recorded = await recordedMigrations(db);
  // Nearly every start finds the store up to date: one query, and the migrator's lock and introspection are skipped.
  if (recorded && recorded.length === migrations.names.length && recorded.every((name, i) => name === migrations.names[i])) return;
  const unknown = (recorded ?? []).filter((name) => !migrations.names.includes(name));
  if (unknown.length > 0) throw new StoreMigratedElsewhere(unknown);
  const { error, results } = await new Migrator({ db, provider: migrations.provider, allowUnorderedMigrations: true }).migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) throw new Error(`Store migration ${failed ? `${failed.migrationName} ` : ''}failed: ${String(error)}`, { cause: error });
}

/** A store migrated by a program this one is not: a newer one, or one serving a face this one does not. */
export class StoreMigratedElsewhere extends Error {
  override name = 'StoreMigratedElsewhere';
  constructor(readonly unknown: readonly string[]) {
    super(
      `The store has run migration${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}, which this program does not have: a newer program, or one serving a face this one does not, migrated it. Open it with that program, or use another store.`,
    );
  }
}

/** The names of the migrations the store has run, in order; undefined for a store that has run none. */
async function recordedMigrations(db: Db): Promise<string[] | undefined> {
  try {
    const { rows } = await sql<{ name: string }>`select name from ${sql.table(DEFAULT_MIGRATION_TABLE)} order by name`.execute(db);
    return rows.map((row) => row.name);
  } catch {
    return undefined;
  }
}
