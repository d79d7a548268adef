/**
 * The core's versioned schema migrations (keys, idempotency, events and the outbox, usage, and the tables
 * of faces not yet moved to their modules), run on start with the modules' own (migration-set.ts). Written
 * with Kysely's schema builder so the same migrations serve SQLite and PostgreSQL. Never edit a shipped
 * migration: add the next one.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { ModuleMigration } from '../core/face-module.js';
import { eventLogFilledLater } from './event-log-migration.js';
import { exactMeterSums } from './exact-sums-migration.js';
import { usageRecordPacks } from './usage-packs-migration.js';

const migrations: Record<string, Migration> = {
  '0001_keys_and_auth': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull().unique())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('prefix', 'text', (c) => c.notNull())
        .addColumn('last4', 'text', (c) => c.notNull())
        .addColumn('scopes', 'text', (c) => c.notNull())
        .addColumn('entities', 'text', (c) => c.notNull())
        .addColumn('tier', 'text', (c) => c.notNull())
        .addColumn('api_version', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text')
        .addColumn('revoked_at', 'text')
        .execute();
    },
  },
  '0002_idempotency': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('idempotency_records')
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('status', 'integer')
        .addColumn('body', 'text')
        .addColumn('headers', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_records_pkey', ['scope', 'key'])
        .addCheckConstraint('idempotency_records_state', sql`state in ('running', 'done')`)
        .execute();
      // The purge deletes by expiry; without the index it would scan every record.
      await db.schema.createIndex('idempotency_records_expires_at').on('idempotency_records').column('expires_at').execute();
    },
  },
  // The webhooks module adds its part (webhook_attempts) after this one (src/faces/webhooks/tables.ts).
  '0003_events_and_webhooks': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('api_version', 'text', (c) => c.notNull())
        .addColumn('request_id', 'text', (c) => c.notNull())
        .addColumn('idempotency_key', 'text')
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('events_partition').on('events').columns(['mode', 'entity_id', 'id']).execute();
      // The retention purge deletes by age.
      await db.schema.createIndex('events_created_at').on('events').column('created_at').execute();
      await db.schema
        .createTable('webhook_endpoints')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('event_types', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('disabled_reason', 'text')
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('previous_secret', 'text')
        .addColumn('previous_secret_expires_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addCheckConstraint('webhook_endpoints_status', sql`status in ('enabled', 'disabled')`)
        .execute();
      // Every emitting call looks up the enabled endpoints of its partition.
      await db.schema.createIndex('webhook_endpoints_partition').on('webhook_endpoints').columns(['mode', 'entity_id', 'id']).execute();
      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('event_id', 'text', (c) => c.notNull().references('events.id').onDelete('cascade'))
        .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('next_attempt_at', 'text', (c) => c.notNull())
        .addColumn('leased_until', 'text')
        .addColumn('first_attempt_at', 'text')
        .addColumn('last_status', 'integer')
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addCheckConstraint('webhook_deliveries_status', sql`status in ('pending', 'succeeded', 'failed')`)
        .execute();
      // The workers' query: pending rows by due time.
      await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
      await db.schema.createIndex('webhook_deliveries_endpoint').on('webhook_deliveries').columns(['endpoint_id', 'id']).execute();
      await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').columns(['event_id']).execute();
    },
  },
  '0004_no_unused_event_index': {
    // Events are only looked up by id (the primary key) and purged by creation time; the partition index
    // cost every emitting call an index update and answered no query.
    async up(db: Kysely<unknown>) {
      await db.schema.dropIndex('events_partition').execute();
    },
  },
  '0005_idempotency_leases': {
    // A running record is held under a lease (its call's deadline plus a margin); a record whose owner died
    // mid-call is claimable again once the lease lapses, instead of answering 409 until it expires.
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('idempotency_records').addColumn('leased_until', 'text').execute();
    },
  },
  '0006_usage': {
    // Raw usage records (kept USAGE_RETENTION_DAYS), and minute rollups (kept far longer) that summaries read.
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('usage_records')
        // No primary key: ids are unique as made, and the partition index below serves every read by id, so
        // SQLite keeps one B-tree per record fewer (a rowid table).
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('request_id', 'text', (c) => c.notNull())
        .addColumn('at', 'text', (c) => c.notNull())
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('face', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('api_version', 'text')
        .addColumn('status', 'integer', (c) => c.notNull())
        .addColumn('error_code', 'text')
        .addColumn('latency_ms', sql`double precision`, (c) => c.notNull())
        .addColumn('units', 'text', (c) => c.notNull())
        .addColumn('cost', 'text', (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('replayed', 'integer', (c) => c.notNull())
        .execute();
      // Records newest first within a partition (ids sort by time). The retention purge scans: it runs every
      // ten minutes, off the hot path.
      await db.schema.createIndex('usage_records_partition').on('usage_records').columns(['mode', 'entity_id', 'id']).execute();
      let rollups = db.schema
        .createTable('usage_rollups')
        .addColumn('minute', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('face', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('status', 'integer', (c) => c.notNull())
        .addColumn('calls', 'integer', (c) => c.notNull())
        .addColumn('errors', 'integer', (c) => c.notNull())
        .addColumn('replayed', 'integer', (c) => c.notNull())
        .addColumn('cost_nanos', 'bigint', (c) => c.notNull())
        .addColumn('latency_ms_sum', sql`double precision`, (c) => c.notNull());
      for (let i = 0; i < 16; i++) rollups = rollups.addColumn(`l${String(i).padStart(2, '0')}`, 'integer', (c) => c.notNull().defaultTo(0));
      await rollups.addPrimaryKeyConstraint('usage_rollups_pkey', ['mode', 'entity_id', 'minute', 'key_id', 'face', 'action', 'status']).execute();
      await db.schema.createIndex('usage_rollups_minute').on('usage_rollups').column('minute').execute();
      await db.schema
        .createTable('usage_unit_rollups')
        .addColumn('minute', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('face', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('status', 'integer', (c) => c.notNull())
        .addColumn('unit', 'text', (c) => c.notNull())
        .addColumn('amount', sql`double precision`, (c) => c.notNull())
        .addPrimaryKeyConstraint('usage_unit_rollups_pkey', ['mode', 'entity_id', 'minute', 'key_id', 'face', 'action', 'status', 'unit'])
        .execute();
      // Ingested meter events: kept for good, since an id is counted once ever (the primary key decides).
      await db.schema
        .createTable('usage_meter_events')
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('subject', 'text')
        .addColumn('time', 'text', (c) => c.notNull())
        .addColumn('value', sql`double precision`, (c) => c.notNull())
        .addColumn('properties', 'text')
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('ingested_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('usage_meter_events_pkey', ['mode', 'entity_id', 'id'])
        .execute();
      await db.schema
        .createTable('usage_meter_rollups')
        .addColumn('minute', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('events', 'integer', (c) => c.notNull())
        .addColumn('value', sql`double precision`, (c) => c.notNull())
        .addPrimaryKeyConstraint('usage_meter_rollups_pkey', ['mode', 'entity_id', 'minute', 'type'])
        .execute();
    },
  },
  '0009_usage_coarse_rollups': {
    // Hour and day rollups beside the minute ones, so that a summary over weeks reads days, not minutes;
    // filled from the minute rollups kept so far.
    async up(db: Kysely<unknown>) {
      let rollups = db.schema
        .createTable('usage_rollups_coarse')
        .addColumn('grain', 'text', (c) => c.notNull())
        .addColumn('period', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('face', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('status', 'integer', (c) => c.notNull())
        .addColumn('calls', 'integer', (c) => c.notNull())
        .addColumn('errors', 'integer', (c) => c.notNull())
        .addColumn('replayed', 'integer', (c) => c.notNull())
        .addColumn('cost_nanos', 'bigint', (c) => c.notNull())
        .addColumn('latency_ms_sum', sql`double precision`, (c) => c.notNull());
      for (let i = 0; i < 16; i++) rollups = rollups.addColumn(`l${String(i).padStart(2, '0')}`, 'integer', (c) => c.notNull().defaultTo(0));
      await rollups.addPrimaryKeyConstraint('usage_rollups_coarse_pkey', ['mode', 'entity_id', 'grain', 'period', 'key_id', 'face', 'action', 'status']).execute();
      // Summaries of every entity of a mode, and the retention purge, read by period.
      await db.schema.createIndex('usage_rollups_coarse_period').on('usage_rollups_coarse').columns(['mode', 'grain', 'period']).execute();
      await db.schema
        .createTable('usage_unit_rollups_coarse')
        .addColumn('grain', 'text', (c) => c.notNull())
        .addColumn('period', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('face', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('status', 'integer', (c) => c.notNull())
        .addColumn('unit', 'text', (c) => c.notNull())
        .addColumn('amount', sql`double precision`, (c) => c.notNull())
        .addPrimaryKeyConstraint('usage_unit_rollups_coarse_pkey', ['mode', 'entity_id', 'grain', 'period', 'key_id', 'face', 'action', 'status', 'unit'])
        .execute();
      for (const [grain, length] of [['hour', 13], ['day', 10]] as const) {
        await sql`insert into usage_rollups_coarse (grain, period, mode, entity_id, key_id, face, action, status, ${sql.raw('calls, errors, replayed, cost_nanos, latency_ms_sum, l00, l01, l02, l03, l04, l05, l06, l07, l08, l09, l10, l11, l12, l13, l14, l15')})
          select ${grain}, substr(minute, 1, ${sql.lit(length)}), mode, entity_id, key_id, face, action, status, ${sql.raw('sum(calls), sum(errors), sum(replayed), sum(cost_nanos), sum(latency_ms_sum), sum(l00), sum(l01), sum(l02), sum(l03), sum(l04), sum(l05), sum(l06), sum(l07), sum(l08), sum(l09), sum(l10), sum(l11), sum(l12), sum(l13), sum(l14), sum(l15)')}
          from usage_rollups group by substr(minute, 1, ${sql.lit(length)}), mode, entity_id, key_id, face, action, status`.execute(db);
        await sql`insert into usage_unit_rollups_coarse (grain, period, mode, entity_id, key_id, face, action, status, unit, amount)
          select ${grain}, substr(minute, 1, ${sql.lit(length)}), mode, entity_id, key_id, face, action, status, unit, sum(amount)
          from usage_unit_rollups group by substr(minute, 1, ${sql.lit(length)}), mode, entity_id, key_id, face, action, status, unit`.execute(db);
      }
    },
  },
  '0012_event_log': {
    // The event log (events.list) reads a partition newest first by stored time, from a cursor; the primary
    // key and the purge's created_at index serve neither, so each page would scan the partition's events.
    async up(db: Kysely<unknown>) {
      await db.schema.createIndex('events_log').on('events').columns(['mode', 'entity_id', 'created_at', 'id']).execute();
    },
  },
  // Usage units and meter values kept and added up exactly, and the meter rollups added up again from the raw
  // events; its own module, as this file is long enough.
  '0018_exact_meter_sums': { up: exactMeterSums },
  // The event log's order in a table of its own, filled after the calls commit; its own module too.
  '0021_event_log_filled_later': { up: eventLogFilledLater },
  // On SQLite the usage tables live in a file of their own, where the store moves them once the migrations have
  // run (sqlite/usage-file.ts); nothing changes in the schema. Recorded all the same, so that a program from
  // before the usage file refuses the store as one migrated by a newer program, instead of missing the tables.
  '0022_usage_file': { up: async () => undefined },
  // On SQLite the event log's order (`event_log`) moves into the usage file too, where the usage file's writer
  // fills it (event-log-fill.ts). Recorded so that a program from before refuses the store: it would read a
  // place that a fill has copied and not yet deleted twice, and its fill would commit a delete in one file and
  // the copy in the other as one transaction, which a crash can split.
  '0023_event_log_in_usage_file': { up: async () => undefined },
  // Raw usage records kept packed, a partition's records of a flush in one row; its own module.
  '0024_usage_record_packs': { up: usageRecordPacks },
};

/**
 * The migrations that made the tables of several owners before each face was a module: each owner gives its
 * part under the same name (the auth module its tables of `0001_keys_and_auth`), so that stores which recorded
 * the name keep it. No other name may be given twice.
 */
export const SPLIT_MIGRATIONS: ReadonlySet<string> = new Set(['0001_keys_and_auth', '0003_events_and_webhooks']);

/** The core's migrations, as the migration set takes them (migration-set.ts). */
export const CORE_MIGRATIONS: readonly ModuleMigration[] = Object.entries(migrations).map(([name, migration]) => ({ name, ...migration }));
