/**
 * One classified difference between two views of the catalogue: its class, whether it breaks clients, what
 * it is about, and where it lives in the newer catalogue's files. `describeChange` words it as a verb
 * phrase ("removes action `ai.embed`") that reads after "Version 2026-09-01 …" in diagnostics and docs alike.
 */
import type { JsonPath } from '../spec/source.js';

/** Where in a schema a change is: what the client sends, or what it receives (results, event data, a stream's events). */
export type SchemaPart = 'payload' | 'result' | 'event' | 'stream';

const SCHEMA_ASPECTS = [
  'field-added',
  'field-removed',
  'field-required',
  'field-optional',
  'type-narrowed',
  'type-widened',
  'type-changed',
  'enum-narrowed',
  'enum-widened',
  'bounds-tightened',
  'bounds-widened',
] as const;

export type SchemaAspect = (typeof SCHEMA_ASPECTS)[number];

export type ChangeClass =
  | 'face-added'
  | 'face-removed'
  | 'action-added'
  | 'action-removed'
  | 'event-added'
  | 'event-removed'
  | 'emits-added'
  | 'emits-removed'
  | 'scope-changed'
  | 'streaming-added'
  | 'streaming-removed'
  | 'stream-only-added'
  | 'stream-only-removed'
  | 'stream-event-added'
  | 'stream-event-removed'
  | 'rate-lowered'
  | 'rate-raised'
  | 'tier-added'
  | 'tier-removed'
  | 'version-removed'
  | 'version-retired'
  | `${SchemaPart}-${SchemaAspect}`;

/**
 * An element of a YAML list named by what it holds (the value itself, or the value of its `by` key) rather
 * than by its index: the catalogue sorts some lists (`emits`, `versions`), so an index into the sorted list
 * need not be the element's place in the file. The locator finds it in the file as written.
 */
export interface Element {
  element: string;
  by?: string;
}

/** A JSON path whose list elements may be named by what they hold. */
export type WherePath = readonly (string | number | Element)[];

/** A node by path; `key` points at its key rather than its value. */
export interface Spot {
  path: WherePath;
  key?: boolean;
}

/**
 * Where a change is, in a face file (or platform.yaml) of the newer catalogue. A thing that is gone points at
 * its nearest surviving parent; `prefer` lists nodes that may still be written (an `until`), best first.
 */
export interface Where extends Spot {
  file: string;
  prefer?: Spot[];
}

export interface Change {
  class: ChangeClass;
  breaking: boolean;
  /** The face it is about; empty for platform-wide changes (tiers, versions). */
  face: string;
  /** `face.action` id, for changes to one action. */
  action?: string;
  /** Event type, for event types and the data they carry. */
  event?: string;
  /** An event of the action's stream, for those and the data they carry. */
  streamEvent?: string;
  /** Dot path of a schema field (`sampling.topP`, `items[]`); empty for the schema's root. */
  field?: string;
  /** Free words that complete the description: "number → integer", "`free`: 60 per minute → 30 per minute". */
  detail?: string;
  at: Where;
}

/**
 * Which schema aspects break clients. What a client sends must keep being accepted: narrowing breaks it.
 * What a client receives must keep being understood: widening breaks it.
 */
const BREAKING_ASPECTS: Record<'input' | 'output', ReadonlySet<SchemaAspect>> = {
  input: new Set(['field-removed', 'field-required', 'type-narrowed', 'type-changed', 'enum-narrowed', 'bounds-tightened']),
  output: new Set(['field-removed', 'field-optional', 'type-widened', 'type-changed', 'enum-widened']),
};

/**
 * Every class outside a schema that does not break clients; the rest do. A stream's new event is additive:
 * a client reading the stream skips an event it does not know (the seed's SSE format, as Stripe's and OpenAI's).
 */
const ADDITIVE_CLASSES: ReadonlySet<ChangeClass> = new Set([
  'face-added',
  'action-added',
  'event-added',
  'emits-added',
  'streaming-added',
  'stream-only-removed',
  'stream-event-added',
  'rate-raised',
  'tier-added',
]);
const SCHEMA_PARTS: readonly string[] = ['payload', 'result', 'event', 'stream'];

export function directionOf(part: SchemaPart): 'input' | 'output' {
  return part === 'payload' ? 'input' : 'output';
}

export function isBreaking(cls: ChangeClass): boolean {
  const [part, aspect] = splitSchemaClass(cls) ?? [];
  if (part && aspect) return BREAKING_ASPECTS[directionOf(part)].has(aspect);
  return !ADDITIVE_CLASSES.has(cls);
}

/** `payload-field-removed` → `['payload', 'field-removed']`; undefined for classes outside a schema (`event-added`, `stream-only-added`). */
function splitSchemaClass(cls: ChangeClass): [SchemaPart, SchemaAspect] | undefined {
  const dash = cls.indexOf('-');
  const part = cls.slice(0, dash);
  const aspect = cls.slice(dash + 1);
  if (!SCHEMA_PARTS.includes(part) || !(SCHEMA_ASPECTS as readonly string[]).includes(aspect)) return undefined;
  return [part as SchemaPart, aspect as SchemaAspect];
}

/** How an id is shown: a code span in the CLI, a link in the docs. */
export type NameStyle = (kind: 'face' | 'action' | 'event', id: string) => string;

export const plainNames: NameStyle = (_kind, id) => `\`${id}\``;

const SCHEMA_VERBS: Record<SchemaAspect, string> = {
  'field-added': 'adds',
  'field-removed': 'removes',
  'field-required': 'requires',
  'field-optional': 'makes optional',
  'type-narrowed': 'narrows the type of',
  'type-widened': 'widens the type of',
  'type-changed': 'changes the type of',
  'enum-narrowed': 'narrows the values of',
  'enum-widened': 'widens the values of',
  'bounds-tightened': 'tightens',
  'bounds-widened': 'loosens',
};

/** The change as a verb phrase, without a final full stop. */
export function describeChange(change: Change, name: NameStyle = plainNames): string {
  const action = change.action ? name('action', change.action) : '';
  const event = change.event ? name('event', change.event) : '';
  const face = name('face', change.face);
  const detail = change.detail ? ` (${change.detail})` : '';
  switch (change.class) {
    case 'face-added':
      return `adds face ${face}`;
    case 'face-removed':
      return `removes face ${face}${detail}`;
    case 'action-added':
      return `adds action ${action}`;
    case 'action-removed':
      return `removes action ${action}`;
    case 'event-added':
      return `adds event type ${event}`;
    case 'event-removed':
      return `removes event type ${event}`;
    case 'emits-added':
      return `makes ${action} emit ${event}`;
    case 'emits-removed':
      return `stops ${action} emitting ${event}`;
    case 'scope-changed':
      return `changes the scope of ${action}${detail}`;
    case 'streaming-added':
      return `lets ${action} answer as a stream`;
    case 'streaming-removed':
      return `stops ${action} answering as a stream`;
    case 'stream-only-added':
      return `makes ${action} answer only as a stream (a call that asks for none is refused with 400 \`stream_required\`)`;
    case 'stream-only-removed':
      return `lets ${action} answer without a stream`;
    case 'stream-event-added':
      return `adds stream event \`${change.streamEvent}\` to ${action}`;
    case 'stream-event-removed':
      return `removes stream event \`${change.streamEvent}\` from ${action}`;
    case 'rate-lowered':
    case 'rate-raised': {
      const owner = change.action ? action : change.face ? `face ${face}` : 'the platform';
      return `${change.class === 'rate-lowered' ? 'lowers' : 'raises'} a rate limit of ${owner}${detail}`;
    }
    // `detail` names the tier for these two, and the version for the two after them.
    case 'tier-added':
      return `adds tier \`${change.detail}\` to platform.yaml`;
    case 'tier-removed':
      return `removes tier \`${change.detail}\` from platform.yaml`;
    case 'version-removed':
      return `drops version ${change.detail} from platform.yaml`;
    case 'version-retired':
      return `retires version ${change.detail}, which announced no sunset`;
  }
  const [part, aspect] = splitSchemaClass(change.class)!;
  const owner = part === 'event' ? `event ${event}` : part === 'stream' ? `stream event \`${change.streamEvent}\` of ${action}` : action;
  const noun = part === 'event' || part === 'stream' ? 'data' : part;
  const place = change.field ? `${noun} field \`${change.field}\` of ${owner}` : `the ${noun} of ${owner}`;
  if (aspect === 'field-optional') return `makes ${place} optional${detail}`;
  if (aspect === 'field-added') return `adds ${part === 'payload' ? 'optional ' : ''}${noun} field \`${change.field}\` to ${owner}${detail}`;
  return `${SCHEMA_VERBS[aspect]} ${place}${detail}`;
}
