/**
 * The view of `docs/events.md`: every event type of the catalogue with the actions that emit it and its
 * data, the event body, and what a webhook receiver needs to know. The delivery facts (time-out, retry
 * schedules) are read from the worker's defaults, so the page cannot drift from what the worker does.
 */
import { slug } from '../core/heading-slug.js';
import { isObject } from '../spec/json-schema.js';
import type { Catalog, EventType, Face, JsonSchema } from '../spec/model.js';
import { WEBHOOK_RETRY_SCHEDULE, WEBHOOK_TIMEOUT_MS, webhookAttempts } from '../spec/webhook-delivery.js';
import { actionLink, byString, code, durations, facePath, oneLine, schemaView, table, type Fact } from './docs-tables.js';

/** Stands in for the time of an event in examples. */
const EXAMPLE_TIME = '2026-09-01T12:00:00.000Z';

export function eventsView(catalog: Catalog) {
  const events = catalog.faces.flatMap((f) => f.events).sort((a, b) => byString(a.type, b.type));
  const faces = new Map(catalog.faces.map((f) => [f.name, f]));
  const actions = new Set(catalog.faces.flatMap((f) => f.actions.map((a) => a.id)));
  // Links only to what the catalogue has, so that a catalogue without the webhooks face has no dead links.
  const link = (id: string) => (actions.has(id) ? actionLink(id) : code(id));
  const emitters = (event: EventType) => event.emittedBy.map(link).join(', ') || 'no action yet';
  const retries = (mode: 'live' | 'test') => ({
    schedule: durations(WEBHOOK_RETRY_SCHEDULE[mode]),
    attempts: webhookAttempts(mode),
  });
  return {
    count: events.length,
    index: table(
      ['Event', 'Summary', 'Emitted by'],
      events.map((e) => [`[${code(e.type)}](#${slug(e.type)})`, oneLine(e.summary), emitters(e)]),
    ),
    events: events.map((event) => eventView(event, faces.get(event.face)!, emitters(event))),
    example: events.length ? bodyExample(events[0]!, catalog.platform.latest) : null,
    // Subscription patterns are shown with an event type of the catalogue.
    pattern: { type: events[0]?.type ?? 'auth.signup.succeeded', face: events[0]?.face ?? 'auth' },
    webhooksFace: faces.has('webhooks') ? `[${code('webhooks')}](${facePath('webhooks')})` : code('webhooks'),
    links: {
      create: link('webhooks.create'),
      update: link('webhooks.update'),
      rotateSecret: link('webhooks.rotateSecret'),
      deliveries: link('webhooks.deliveries'),
      replay: link('webhooks.replay'),
      test: link('webhooks.test'),
    },
    timeoutSeconds: WEBHOOK_TIMEOUT_MS / 1000,
    live: retries('live'),
    test: retries('test'),
  };
}

function eventView(event: EventType, face: Face, emitters: string) {
  const named = Object.fromEntries(face.schemas.map((s) => [s.name, s.schema]));
  // The named schemas the data uses are documented on the face's page.
  const ref = (name: string) => (named[name] ? `[${name}](${facePath(face.name)}#${slug(name)})` : name);
  const version = (date: string) => `[${date}](versions.md#${slug(date)})`;
  const facts: Fact[] = [
    { label: 'Face', value: `[${code(face.name)}](${facePath(face.name)}#events)` },
    { label: 'Emitted by', value: emitters },
  ];
  return {
    type: event.type,
    summary: event.summary.trim(),
    description: event.description?.trim() ?? '',
    facts,
    data: schemaView(event.data, ref, version, named),
  };
}

/** A whole event body of one type, its data made up from the data schema. */
function bodyExample(event: EventType, latest: string): string {
  const body = {
    id: 'evt_01JD7N9V3W2K8Q5R6T7Y8Z9A0B',
    type: event.type,
    timestamp: EXAMPLE_TIME,
    apiVersion: latest,
    livemode: false,
    entityId: 'acme',
    request: { id: 'req_01JD7N9V3W2K8Q5R6T7Y8Z9A0C', idempotencyKey: null },
    data: sample(event.dataSchema, event.dataSchema, 0),
  };
  return JSON.stringify(body, null, 2);
}

/** A plausible value of a self-contained schema (named schemas under `$defs`), as event bodies show. */
export const sampleValue = (schema: JsonSchema): unknown => sample(schema, schema, 0);

/**
 * A plausible value of a schema: its required properties only, constants and first enum values, `"…"` for
 * free text. Deep or recursive schemas stop at a few levels.
 */
function sample(schema: unknown, root: JsonSchema, depth: number): unknown {
  if (!isObject(schema) || depth > 4) return {};
  if (typeof schema.$ref === 'string' && schema.$ref.startsWith('#/$defs/')) {
    const defs = isObject(root.$defs) ? root.$defs : {};
    return sample(defs[schema.$ref.slice('#/$defs/'.length)], root, depth + 1);
  }
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (Array.isArray(schema.allOf)) {
    return Object.assign({}, ...schema.allOf.map((member) => sample(member, root, depth + 1)));
  }
  const union = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(union)) return sample(union[0], root, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'array') return isObject(schema.items) ? [sample(schema.items, root, depth + 1)] : [];
  if (type === 'integer' || type === 'number') return typeof schema.minimum === 'number' ? schema.minimum : 0;
  if (type === 'boolean') return false;
  if (type === 'string') return stringSample(schema);
  if (!isObject(schema.properties)) return {};
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  return Object.fromEntries(
    Object.entries(schema.properties)
      .filter(([name]) => required.includes(name))
      .map(([name, property]) => [name, sample(property, root, depth + 1)]),
  );
}

/** A date for date-times, the prefix and an ellipsis for ids (`^usr_`), an ellipsis otherwise. */
function stringSample(schema: JsonSchema): string {
  if (schema.format === 'date-time') return EXAMPLE_TIME;
  if (schema.format === 'email') return 'ada@example.com';
  const prefix = typeof schema.pattern === 'string' ? /^\^([a-z]+_)/.exec(schema.pattern)?.[1] : undefined;
  return `${prefix ?? ''}…`;
}
