/**
 * The webhooks face's own table: the attempts of each delivery (what `webhooks.deliveries` lists), declared
 * into the store's `Database` (so every `ctx.db` query types it), and its part of the migration that made it.
 * The endpoints and the deliveries are the core's: the commit of every emitting call reads the one and
 * writes the other (the outbox, src/store/events.ts), whether or not this module is served.
 */
import type { Kysely } from 'kysely';
import type { ModuleMigration } from '../../core/face-module.js';

declare module '../../store/schema.js' {
  interface Database {
    webhook_attempts: WebhookAttemptTable;
  }
}

/** One HTTP request of a delivery. */
export interface WebhookAttemptTable {
  delivery_id: string;
  /** 1 for the first request of the delivery. */
  attempt: number;
  started_at: string;
  duration_ms: number;
  /** The receiver's status code; null when no answer came (refused, timed out, address not allowed). */
  response_status: number | null;
  error: string | null;
  succeeded: number;
}

export const migrations: readonly ModuleMigration[] = [
  {
    // Its part of a migration made before the tables had one owner; the core's part (events, endpoints and
    // deliveries) runs first, so the deliveries this table references exist.
    name: '0003_events_and_webhooks',
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('webhook_attempts')
        .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('started_at', 'text', (c) => c.notNull())
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addColumn('response_status', 'integer')
        .addColumn('error', 'text')
        .addColumn('succeeded', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('webhook_attempts_pkey', ['delivery_id', 'attempt'])
        .execute();
    },
  },
];
