/**
 * The resolved catalogue: one sorted, immutable model of the platform and its faces. Emitters read only
 * this, never raw YAML.
 */

export type JsonSchema = { [keyword: string]: unknown };

export type VersionStatus = 'stable' | 'deprecated' | 'retired';

export interface ApiVersion {
  date: string;
  status: VersionStatus;
  summary: string;
  announced?: string;
  deprecatedAt?: string;
  sunset?: string;
}

export interface RatePolicy {
  limit: number;
  windowSeconds: number;
}

export interface Tier {
  name: string;
  token: RatePolicy;
  entity: RatePolicy;
  /** What the tier may keep in the storage face; absent: no quota (objects up to S3's 5 GiB). */
  storage?: StorageLimits;
}

/** A tier's storage limits, in bytes: the largest object, and everything an entity keeps in one mode. */
export interface StorageLimits {
  objectBytes: number;
  storedBytes: number;
}

export interface Scope {
  name: string;
  description: string;
  /** `face.action` ids requiring this scope, sorted. */
  actions: string[];
}

export interface Limits {
  bodyBytes: number;
  batchSize: number;
  timeout: { default: number; max: number };
}

export interface Platform {
  /** How the OpenAPI document and the client present the API. */
  info: PlatformInfo;
  scopes: Scope[];
  tiers: Tier[];
  /** Sorted oldest first. */
  versions: ApiVersion[];
  /** The newest stable version: what a request that names none gets. */
  latest: string;
  limits: Limits;
  changelogUrl: string;
  errorDocsUrl: string;
  /** ISO 4217 code, lower case, of every cost. */
  currency: string;
  /** The units actions may price per, sorted by name. */
  units: Unit[];
}

export interface PlatformInfo {
  title: string;
  contact?: { name?: string; url?: string; email?: string };
  /** An SPDX `identifier` or a `url`, one of the two. */
  license?: { name: string; identifier?: string; url?: string };
}

/** A unit of use that a handler reports and an action may price per (`inputTokens`, `bytes`, ...). */
export interface Unit {
  name: string;
  description: string;
}

export interface FaceError {
  code: string;
  status: number;
  type: string;
  message: string;
  retryable: boolean;
}

/**
 * Prices in the platform currency, as decimal strings exactly as the face file writes them (never floats, so
 * that 0.1 stays 0.1 down to each call's cost). `perCall` is "0" when the action declares none; `perUnit` is
 * keyed by unit name, sorted.
 */
export interface Cost {
  perCall: string;
  perUnit: Record<string, string>;
}

/** What one call counts for in rate limits: `perCall` plus `perItem[field]` per element of that payload array. */
export interface Weight {
  perCall: number;
  perItem: Record<string, number>;
}

export interface Example {
  title?: string;
  payload: unknown;
  result: unknown;
}

/** The payload schema of an action as it stands in one range of versions. */
export interface PayloadVariant {
  /** Versions (dates) served by this variant, oldest first. */
  versions: string[];
  /** Stable validator name, e.g. `ai_generate_2026_01_01`. */
  validator: string;
  /** Self-contained schema (named schemas under `$defs`), `since`/`until` removed. */
  schema: JsonSchema;
}

/**
 * What a call does to the world: `read` changes nothing that lasts, `write` creates or changes something,
 * `destroy` deletes, revokes or ends something (a destructive update, in MCP's words).
 */
export type Effect = 'read' | 'write' | 'destroy';

export interface Action {
  face: string;
  name: string;
  /** `face.action` */
  id: string;
  /** PascalCase stem of generated type names, e.g. `AiGenerate`. */
  typeName: string;
  summary: string;
  description?: string;
  /** A short name for people (an MCP tool's title); absent: one is made from the summary. */
  title?: string;
  scope: string;
  /** As declared; `write` when the face file declares none (which lint reports). */
  effect: Effect;
  /** A repeat with the same payload changes nothing more; a read always is. */
  idempotent: boolean;
  /** Reaches a system outside the platform (a model provider, a payment processor, an SMTP server, a URL). */
  external: boolean;
  since: string;
  until?: string;
  stream: boolean;
  /** Answers only as a stream: a call that does not ask for one is refused with `stream_required`. */
  streamOnly: boolean;
  /** Events of its own a streaming action sends (docs/contract.md § Streaming "action events"), sorted by name. */
  streamEvents: StreamEventType[];
  atomic: boolean;
  /** A list action paging by `startingAfter` continues after this field of its last item (`id` when unset). */
  pageBy?: string;
  cost: Cost;
  weight: Weight;
  emits: string[];
  /**
   * The error codes its handler can answer beyond the pipeline's, sorted, as the face file lists them (each
   * declared by some face or the platform); absent when it lists none, which means any of its face's.
   */
  errors?: string[];
  rate: Record<string, RatePolicy>;
  /** As written, with `since`/`until` annotations and `#/schemas/…` references. */
  payload: JsonSchema;
  result: JsonSchema;
  examples: Example[];
  /** One entry per distinct payload schema across the versions that serve the action. */
  variants: PayloadVariant[];
  /** Self-contained result schema (named schemas under `$defs`). */
  resultSchema: JsonSchema;
}

/** An event a streaming action sends on its stream, besides `start`, `delta` and `progress`. */
export interface StreamEventType {
  name: string;
  summary: string;
  description?: string;
  /** The data schema as written, with `#/schemas/…` references. */
  data: JsonSchema;
  /** Self-contained data schema in the latest version (named schemas under `$defs`). */
  dataSchema: JsonSchema;
}

/** An event type a face declares: what its actions emit and webhook subscribers receive. */
export interface EventType {
  /** `<face>.<noun>.<outcome>` */
  type: string;
  face: string;
  /** PascalCase stem of generated type names, e.g. `AuthSignupSucceeded`. */
  typeName: string;
  summary: string;
  description?: string;
  /** The data schema as written, with `#/schemas/…` references. */
  data: JsonSchema;
  /** Self-contained data schema in the latest version (named schemas under `$defs`). */
  dataSchema: JsonSchema;
  /** Stable validator name, e.g. `event_auth_signup_succeeded`. */
  validator: string;
  /** Ids of the actions that emit it, sorted. */
  emittedBy: string[];
  /** The calls that make it happen in test mode (`dispatch trigger`), as the face file writes them; absent when it gives none. */
  trigger?: TriggerStep[];
}

/**
 * One call of an event's fixture: `call` (`face.action`) with `payload`, in which a string `"${name.field}"`
 * stands for that field of the result of the earlier step called `name`.
 */
export interface TriggerStep {
  name?: string;
  call: string;
  payload: Record<string, unknown>;
  /** The error code the call is expected to answer, its effects kept (a declined card). */
  error?: string;
}

export interface Face {
  name: string;
  /** PascalCase name, e.g. `Ai`. */
  typeName: string;
  summary: string;
  description?: string;
  since: string;
  file: string;
  /** Served by the runtime itself (batch), not by a handler module. */
  builtin: boolean;
  rate: Record<string, RatePolicy>;
  errors: FaceError[];
  /** Named schemas, referenced as `#/schemas/<Name>`; sorted by name. */
  schemas: { name: string; schema: JsonSchema }[];
  /** Sorted by type. */
  events: EventType[];
  /** Sorted by name. */
  actions: Action[];
}

export interface Catalog {
  platform: Platform;
  /** Sorted by name. */
  faces: Face[];
}
