/**
 * The email face's own tables: messages (the durable send queue of live mode: due rows are leased like
 * webhook deliveries), templates and suppression lists, declared into the store's `Database` (so every
 * `ctx.db` query types them), and the migration that makes them.
 */
import type { Kysely } from 'kysely';
import type { ModuleMigration } from '../../core/face-module.js';
import type { Mode } from '../../store/schema.js';

declare module '../../store/schema.js' {
  interface Database {
    email_messages: EmailMessageTable;
    email_templates: EmailTemplateTable;
    email_suppressions: EmailSuppressionTable;
  }
}

export type EmailStatus = 'queued' | 'deferred' | 'sent' | 'delivered' | 'bounced' | 'complained' | 'suppressed';

export interface EmailMessageTable {
  mode: Mode;
  entity_id: string;
  /** `em_…` */
  id: string;
  status: EmailStatus;
  from_address: string;
  /** JSON arrays of mailboxes as given. */
  to_addresses: string;
  cc_addresses: string | null;
  bcc_addresses: string | null;
  reply_to: string | null;
  /** As rendered (a template's output, or as given). */
  subject: string;
  text_body: string | null;
  html_body: string | null;
  /** JSON objects, or null. */
  headers: string | null;
  tags: string | null;
  template: string | null;
  /** JSON array of `{key, filename, contentType, size, sha256}`, or null. */
  attachments: string | null;
  scheduled_at: string | null;
  /** When the queue may next send it (live mode, while queued or deferred). */
  next_attempt_at: string | null;
  leased_until: string | null;
  attempts: number;
  last_error: string | null;
  /** JSON array of `{status, at, detail?}`. */
  history: string;
  created_at: string;
  updated_at: string;
}

export interface EmailTemplateTable {
  mode: Mode;
  entity_id: string;
  /** `tmpl_…` */
  id: string;
  name: string;
  subject: string;
  text_body: string | null;
  html_body: string | null;
  created_at: string;
  updated_at: string;
}

export interface EmailSuppressionTable {
  mode: Mode;
  entity_id: string;
  /** Lower case. */
  address: string;
  reason: 'bounce' | 'complaint';
  message_id: string | null;
  created_at: string;
}

export const migrations: readonly ModuleMigration[] = [
  {
    name: '0015_email',
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('email_messages')
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('from_address', 'text', (c) => c.notNull())
        .addColumn('to_addresses', 'text', (c) => c.notNull())
        .addColumn('cc_addresses', 'text')
        .addColumn('bcc_addresses', 'text')
        .addColumn('reply_to', 'text')
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('text_body', 'text')
        .addColumn('html_body', 'text')
        .addColumn('headers', 'text')
        .addColumn('tags', 'text')
        .addColumn('template', 'text')
        .addColumn('attachments', 'text')
        .addColumn('scheduled_at', 'text')
        .addColumn('next_attempt_at', 'text')
        .addColumn('leased_until', 'text')
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('last_error', 'text')
        .addColumn('history', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('email_messages_pkey', ['mode', 'entity_id', 'id'])
        .execute();
      await db.schema.createIndex('email_messages_due').on('email_messages').columns(['status', 'next_attempt_at']).execute();
      await db.schema
        .createTable('email_templates')
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('text_body', 'text')
        .addColumn('html_body', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('email_templates_pkey', ['mode', 'entity_id', 'name'])
        .execute();
      await db.schema
        .createTable('email_suppressions')
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('message_id', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('email_suppressions_pkey', ['mode', 'entity_id', 'address'])
        .execute();
    },
  },
];
