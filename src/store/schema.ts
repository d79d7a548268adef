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

/**
 * An event's place in the event log (its partition, stored time and id, and its type for filtering). On
 * SQLite it is in `event_log_pending` from its event's insert until the log filler (event-log-fill.ts) moves
 * it to `event_log` (in the usage file), which keeps them in log order; on PostgreSQL `event_log` is a view
 * of the events.
 */
export type EventLogTable = Pick<EventTable, 'mode' | 'entity_id' | 'created_at' | 'id' | 'type'>;

export type EndpointStatus = 'enabled' | 'disabled';

/**
 * A webhook subscription of one (mode, entity); the core's, as the outbox reads it on every emitting commit
 * (the webhooks module manages the endpoints).
 */
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

/**
 * Raw usage records as they are stored: a partition's records of one flush part, packed
 * (usage-record-packs.ts); `usage_records` is a view that unpacks them.
 */
export interface UsageRecordPackTable {
  mode: Mode;
  entity_id: string;
  /** The smallest and the largest id of the pack's records: a read's range of ids finds packs by them. */
  first_id: string;
  last_id: string;
  /** JSON array of the records, each an array of its values in the order of PACKED_COLUMNS. */
  records: string;
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

export interface Database {
  api_keys: ApiKeyTable;
  idempotency_records: IdempotencyRecordTable;
  events: EventTable;
  event_log: EventLogTable;
  event_log_pending: EventLogTable;
  webhook_endpoints: WebhookEndpointTable;
  webhook_deliveries: WebhookDeliveryTable;
  /** A view over `usage_record_packs`, read-only. */
  usage_records: UsageRecordTable;
  usage_record_packs: UsageRecordPackTable;
  usage_rollups: UsageRollupTable;
  usage_unit_rollups: UsageUnitRollupTable;
  usage_rollups_coarse: UsageCoarseRollupTable;
  usage_unit_rollups_coarse: UsageUnitCoarseRollupTable;
  usage_meter_events: UsageMeterEventTable;
  usage_meter_rollups: UsageMeterRollupTable;
}

export type Db = Kysely<Database>;
