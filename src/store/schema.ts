/**
 * Table types of the store, shared by the SQLite and PostgreSQL dialects. Times are ISO-8601 strings and
 * lists are JSON text, so that the same typed queries run unchanged on both.
 */
import type { Kysely } from 'kysely';

export type Mode = 'live' | 'test';

export interface ApiKeyTable {
  id: string;
  mode: Mode;
  /** SHA-256 of the secret, hex. */
  hash: string;
  name: string;
  prefix: string;
  last4: string;
  /** JSON array of scope strings. */
  scopes: string;
  /** JSON: `"*"` or an array of entity ids. */
  entities: string;
  tier: string;
  api_version: string | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

export interface AuthUserTable {
  id: string;
  mode: Mode;
  entity_id: string;
  /** Lower-cased. */
  email: string;
  name: string | null;
  password_hash: string;
  created_at: string;
  /** When an admin disabled the user; null while it is enabled. */
  disabled_at: string | null;
}

export interface AuthSessionTable {
  id: string;
  mode: Mode;
  entity_id: string;
  user_id: string;
  /** SHA-256 of the session token, hex. */
  token_hash: string;
  created_at: string;
  expires_at: string;
  ended_at: string | null;
}

/**
 * The recent failed logins of one e-mail address in a partition, whether or not a user has it (so a refusal
 * reveals no account): the latest failures only, as many as the login throttle counts.
 */
export interface AuthLoginThrottleTable {
  mode: Mode;
  entity_id: string;
  /** Lower-cased, as logins compare it. */
  email: string;
  /** JSON array of ISO times, oldest first. */
  failures: string;
  /** The newest of them: rows whose newest failure is past the window are deleted. */
  last_failed_at: string;
}

/** One idempotency key as used within one scope, and the reply it produced once that is known. */
export interface IdempotencyRecordTable {
  /** API key id, mode and entity, joined with `:`. */
  scope: string;
  key: string;
  /** SHA-256 of face, action, resolved version and canonical payload. */
  fingerprint: string;
  state: 'running' | 'done';
  /** HTTP status of the stored reply; null while running. */
  status: number | null;
  /** JSON response body; null while running. */
  body: string | null;
  /** JSON object of response headers; null while running. */
  headers: string | null;
  /** While running: when the claim lapses if its call has not finished (its owner died); null once done. */
  leased_until: string | null;
  created_at: string;
  expires_at: string;
}

/** An emitted event (docs/contract.md § Webhooks), written in the same transaction as the effects of the call that emitted it. */
export interface EventTable {
  /** `evt_…` */
  id: string;
  mode: Mode;
  entity_id: string;
  /** `<face>.<noun>.<outcome>` */
  type: string;
  api_version: string;
  request_id: string;
  idempotency_key: string | null;
  /** JSON of the event's `data`. */
  data: string;
  created_at: string;
}

export type EndpointStatus = 'enabled' | 'disabled';

/** A webhook subscription of one (mode, entity). */
export interface WebhookEndpointTable {
  /** `wh_…` */
  id: string;
  mode: Mode;
  entity_id: string;
  url: string;
  description: string | null;
  /** JSON array of event patterns: exact types, `<face>.*` or `*`. */
  event_types: string;
  status: EndpointStatus;
  /** Why the endpoint was disabled (`gone` after a 410), if it is. */
  disabled_reason: string | null;
  /** `whsec_…`: signs every delivery. */
  secret: string;
  /** The secret before the last rotation, which also signs until `previous_secret_expires_at`. */
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/**
 * One event on its way to one endpoint: the queue the delivery workers share. A worker leases a due row
 * (`leased_until`), sends it, and records the attempt; a lease that lapses (the worker died) makes it due again.
 */
export interface WebhookDeliveryTable {
  /** `dlv_…` */
  id: string;
  event_id: string;
  endpoint_id: string;
  mode: Mode;
  entity_id: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string;
  leased_until: string | null;
  first_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
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

/** One call as usage analytics records it (docs/contract.md § Usage). */
export interface UsageRecordTable {
  /** `use_…` */
  id: string;
  request_id: string;
  /** ISO time the call was answered. */
  at: string;
  key_id: string;
  mode: Mode;
  entity_id: string;
  face: string;
  action: string;
  api_version: string | null;
  status: number;
  error_code: string | null;
  latency_ms: number;
  /** JSON object of what the handler reported, e.g. `{"inputTokens":12,"outputTokens":40}`. */
  units: string;
  /** Decimal string in `currency`; never a float. */
  cost: string;
  currency: string;
  /** 1 for an idempotent replay (which costs nothing). */
  replayed: number;
}

/** Usage added up per minute, key, action and status, so that summaries do not read raw records. */
export type UsageRollupTable = {
  /** `YYYY-MM-DDTHH:MM` (UTC). */
  minute: string;
  mode: Mode;
  entity_id: string;
  key_id: string;
  face: string;
  action: string;
  status: number;
  calls: number;
  errors: number;
  replayed: number;
  /** Whole 10⁻⁹ units of the currency (exact; read it through a cast to text). */
  cost_nanos: number | string;
  latency_ms_sum: number;
} & { [bucket in `l${string}`]: number };

/** Usage added up per hour or day (`grain`), `period` being `YYYY-MM-DDTHH` or `YYYY-MM-DD`. */
export type UsageCoarseRollupTable = Omit<UsageRollupTable, 'minute'> & { grain: 'hour' | 'day'; period: string };

/** Units added up per hour or day. */
export type UsageUnitCoarseRollupTable = Omit<UsageUnitRollupTable, 'minute'> & { grain: 'hour' | 'day'; period: string };

/** Units added up per minute, key, action and unit name. */
export interface UsageUnitRollupTable {
  minute: string;
  mode: Mode;
  entity_id: string;
  key_id: string;
  face: string;
  action: string;
  status: number;
  unit: string;
  /** Exact decimal (numeric on PostgreSQL, text on SQLite: store/exact-decimal.ts). */
  amount: string;
}

/** One ingested meter event (`usage.ingest`). */
export interface UsageMeterEventTable {
  mode: Mode;
  entity_id: string;
  /** The caller's id: counted once, ever, per (mode, entity). */
  id: string;
  type: string;
  subject: string | null;
  /** ISO time the event happened. */
  time: string;
  /** Exact decimal (numeric on PostgreSQL, text on SQLite: store/exact-decimal.ts); ingested to 9 places. */
  value: string;
  /** JSON object, or null. */
  properties: string | null;
  key_id: string;
  ingested_at: string;
}

/** Ingested events added up per minute (of their time) and type. */
export interface UsageMeterRollupTable {
  minute: string;
  mode: Mode;
  entity_id: string;
  type: string;
  events: number;
  /** Exact decimal (numeric on PostgreSQL, text on SQLite: store/exact-decimal.ts). */
  value: string;
}

/** A ledger account of a partition, with the running sum of its postings. */
export interface LedgerAccountTable {
  mode: Mode;
  entity_id: string;
  id: string;
  currency: string;
  /** 1: the balance may never go below zero. */
  no_overdraft: number;
  /** Integer minor units (PostgreSQL's bigint arrives as a string). */
  balance: number | string;
  created_at: string;
}

export interface LedgerTransferTable {
  mode: Mode;
  entity_id: string;
  id: string;
  currency: string;
  kind: string;
  created_at: string;
}

export interface LedgerPostingTable {
  mode: Mode;
  entity_id: string;
  transfer_id: string;
  account: string;
  currency: string;
  /** Signed integer minor units. */
  amount: number | string;
  created_at: string;
}

export interface PaymentCustomerTable {
  mode: Mode;
  entity_id: string;
  /** `cus_…` */
  id: string;
  email: string | null;
  name: string | null;
  /** JSON object, or null. */
  metadata: string | null;
  created_at: string;
}

/** `processing`: a confirmation recorded in flight until the processor answers (or a capture or cancel inside its call). */
export type IntentStatus = 'requires_payment_method' | 'requires_confirmation' | 'processing' | 'requires_capture' | 'succeeded' | 'canceled';

export interface PaymentIntentTable {
  mode: Mode;
  entity_id: string;
  /** `pi_…` */
  id: string;
  /** Integer minor units (bigint columns arrive as strings from PostgreSQL). */
  amount: number | string;
  currency: string;
  status: IntentStatus;
  capture_method: 'automatic' | 'manual';
  customer_id: string | null;
  description: string | null;
  metadata: string | null;
  /** The payment method to confirm with, as given (JSON), until it is used. */
  payment_method: string | null;
  card_brand: string | null;
  card_last4: string | null;
  /** The processor's id of the payment (sandbox or Stripe). */
  processor_id: string | null;
  amount_capturable: number | string;
  amount_received: number | string;
  amount_refunded: number | string;
  last_error_code: string | null;
  last_error_message: string | null;
  cancellation_reason: string | null;
  /** Confirmations the intent settled or gave up: the processor's idempotency key of the next one names it. */
  attempts: number;
  created_at: string;
  updated_at: string;
}

/** `processing` from its recording until the processor answers; `failed` when it refused (never listed). */
export type RefundStatus = 'processing' | 'succeeded' | 'failed';

export interface PaymentRefundTable {
  mode: Mode;
  entity_id: string;
  /** `re_…` */
  id: string;
  intent_id: string;
  amount: number | string;
  currency: string;
  reason: string | null;
  status: RefundStatus;
  /** The processor's id of the refund, once it made it. */
  processor_id: string | null;
  created_at: string;
}

/** Which intent or refund a call started, by the call's recovery key (src/payments/recovery.ts). */
export interface PaymentRecoveryTable {
  mode: Mode;
  entity_id: string;
  /** A digest of the call's idempotency key and its scope. */
  recovery_key: string;
  /** `pi_…` or `re_…` */
  object_id: string;
  created_at: string;
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

export interface Database {
  api_keys: ApiKeyTable;
  auth_users: AuthUserTable;
  auth_sessions: AuthSessionTable;
  auth_login_throttle: AuthLoginThrottleTable;
  idempotency_records: IdempotencyRecordTable;
  events: EventTable;
  webhook_endpoints: WebhookEndpointTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_attempts: WebhookAttemptTable;
  usage_records: UsageRecordTable;
  usage_rollups: UsageRollupTable;
  usage_unit_rollups: UsageUnitRollupTable;
  usage_rollups_coarse: UsageCoarseRollupTable;
  usage_unit_rollups_coarse: UsageUnitCoarseRollupTable;
  usage_meter_events: UsageMeterEventTable;
  usage_meter_rollups: UsageMeterRollupTable;
  ledger_accounts: LedgerAccountTable;
  ledger_transfers: LedgerTransferTable;
  ledger_postings: LedgerPostingTable;
  payment_customers: PaymentCustomerTable;
  payment_intents: PaymentIntentTable;
  payment_refunds: PaymentRefundTable;
  payment_recoveries: PaymentRecoveryTable;
  email_messages: EmailMessageTable;
  email_templates: EmailTemplateTable;
  email_suppressions: EmailSuppressionTable;
}

export type Db = Kysely<Database>;
