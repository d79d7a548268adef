/**
 * How `dispatch trigger <event>` makes an event happen, read from the running server's OpenAPI document (what it
 * really serves). An event whose face file gives it a fixture (the `x-trigger` of its `webhooks` entry: calls in
 * order, later ones reading earlier results) is made by running it. For one without, the actions that emit the
 * event (`x-actions[].emits`) and their request examples: an example names the resources it acts on by id
 * (`cus_…`, `sub_…`, `usr_…`); each is made first by an action whose own example answers an id of that kind
 * without needing one (`payments.createCustomer` answers a `cus_…`), so `billing.subscription.created` runs
 * `payments.createCustomer` and `billing.createPrice`, then `billing.subscribe` with their real ids. Nothing here
 * calls the server: fixtures and plans are run by trigger-run.ts.
 */

/** An id as the platform makes them: a prefix, `_`, and a ULID (docs/contract.md § Conventions). */
const ID = /^([a-z][a-z0-9]*)_[0-9A-Z]{26}$/;

/** How deep prerequisites may nest (a refund needs an intent; a cancellation a subscription, which needs a customer). */
export const MAX_DEPTH = 3;

/** One request example of an action, with the result its response example shows. */
export interface Example {
  action: string;
  payload: unknown;
  /** The example asks for a stream (a stream-only action). */
  stream: boolean;
  result: unknown;
}

/** What an action that makes a kind of id answers, and where in its result the id is. */
export interface Maker {
  example: Example;
  path: readonly string[];
}

/** One call of an event's fixture, as `x-trigger` gives it (docs/writing-a-face.md § Writing a face). */
export interface FixtureStep {
  /** What later steps call its result: `"${name.field}"` in their payloads. */
  name?: string;
  /** `face.action` */
  call: string;
  payload: Record<string, unknown>;
  /** The error code the call is expected to answer, its effects kept (a declined card). */
  error?: string;
  /** The action answers only as a stream. */
  stream?: boolean;
}

/** The served catalogue as far as triggering needs it. */
export interface TriggerCatalogue {
  /** The API version the document describes: what its fixtures and examples are valid in, and the calls name. */
  version?: string;
  /** Every event type the server declares. */
  events: string[];
  /** The fixture of each event that has one. */
  fixtures: Map<string, FixtureStep[]>;
  /** For each event type, the examples of the actions that emit it. */
  emitters: Map<string, Example[]>;
  /** For each id prefix, the examples that make such an id, best first. */
  makers: Map<string, Maker[]>;
}

interface OpenApiExample {
  value?: unknown;
}

interface OpenApiDocument {
  info?: { version?: string };
  webhooks?: Record<string, { post?: { 'x-trigger'?: FixtureStep[] } } | undefined>;
  'x-actions'?: { id: string; emits?: string[] }[];
  paths?: Record<string, { post?: { requestBody?: JsonContent; responses?: Record<string, JsonContent> } }>;
}

interface JsonContent {
  content?: Record<string, { examples?: Record<string, OpenApiExample> }>;
}

/** Reads the catalogue out of a served OpenAPI document. */
export function triggerCatalogue(doc: OpenApiDocument): TriggerCatalogue {
  const examples = new Map<string, Example[]>();
  for (const { id } of doc['x-actions'] ?? []) examples.set(id, examplesOf(id, doc));
  const emitters = new Map<string, Example[]>();
  for (const { id, emits = [] } of doc['x-actions'] ?? []) {
    for (const event of emits) emitters.set(event, [...(emitters.get(event) ?? []), ...(examples.get(id) ?? [])]);
  }
  const makers = new Map<string, Maker[]>();
  for (const example of [...examples.values()].flat()) {
    const needs = new Set(idsIn(example.payload).map((ref) => ref.prefix));
    for (const made of idsIn(example.result)) {
      // A path through a list is a list's item (an existing resource), and an action that needs an id of a kind
      // to answer one (`getCustomer`, `updateCustomer`) does not make it.
      if (made.path.some((step) => /^\d+$/.test(step)) || needs.has(made.prefix)) continue;
      makers.set(made.prefix, [...(makers.get(made.prefix) ?? []), { example, path: made.path }]);
    }
  }
  // The resource's own `id` before an id it mentions, nearer ones before deeper ones.
  const rank = (m: Maker) => (m.path.at(-1) === 'id' ? 0 : 100) + m.path.length;
  for (const list of makers.values()) list.sort((a, b) => rank(a) - rank(b));
  const fixtures = new Map(Object.entries(doc.webhooks ?? {}).flatMap(([event, entry]) => (entry?.post?.['x-trigger'] ? [[event, entry.post['x-trigger']] as const] : [])));
  return { ...(doc.info?.version ? { version: doc.info.version } : {}), events: Object.keys(doc.webhooks ?? {}).sort(), fixtures, emitters, makers };
}

function examplesOf(action: string, doc: OpenApiDocument): Example[] {
  const post = doc.paths?.[`/do/${action}`]?.post;
  const requests = post?.requestBody?.content?.['application/json']?.examples ?? {};
  const results = post?.responses?.['200']?.content?.['application/json']?.examples ?? {};
  return Object.entries(requests).flatMap(([name, { value }]) => {
    const call = value as { payload?: unknown; options?: { stream?: boolean } } | undefined;
    if (!call || call.payload === undefined) return [];
    const result = (results[name]?.value as { data?: unknown } | undefined)?.data;
    return [{ action, payload: call.payload, stream: call.options?.stream === true, result }];
  });
}

/** Every id in a value, with its prefix and the path to it. */
export function idsIn(value: unknown, path: string[] = []): { prefix: string; path: string[]; id: string }[] {
  if (typeof value === 'string') {
    const prefix = ID.exec(value)?.[1];
    return prefix ? [{ prefix, path, id: value }] : [];
  }
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => idsIn(inner, [...path, key]));
}

/**
 * The examples that can make `event` happen, those needing fewer calls first: an example qualifies when every id
 * it names can be made (within `MAX_DEPTH`).
 */
export function plansFor(catalogue: TriggerCatalogue, event: string): Example[] {
  const usable = (catalogue.emitters.get(event) ?? []).map((example) => ({ example, calls: callsFor(catalogue, example, 0) }));
  return usable.filter((u) => u.calls !== undefined).sort((a, b) => a.calls! - b.calls!).map((u) => u.example);
}

/** Whether `event` has a fixture, or an example that can be run for it. */
export function canTrigger(catalogue: TriggerCatalogue, event: string): boolean {
  return catalogue.fixtures.has(event) || plansFor(catalogue, event).length > 0;
}

/** The events a fixture or an example can make happen. */
export function triggerableEvents(catalogue: TriggerCatalogue): string[] {
  return catalogue.events.filter((event) => canTrigger(catalogue, event));
}

/** How many calls the example takes with its prerequisites (the first maker of each), or undefined when it cannot be run. */
function callsFor(catalogue: TriggerCatalogue, example: Example, depth: number): number | undefined {
  if (depth > MAX_DEPTH) return undefined;
  let calls = 1;
  for (const ref of idsIn(example.payload)) {
    const made = (catalogue.makers.get(ref.prefix) ?? []).map((m) => callsFor(catalogue, m.example, depth + 1)).find((n) => n !== undefined);
    if (made === undefined) return undefined;
    calls += made;
  }
  return calls;
}
