/**
 * Runs the plans of trigger-plan.ts through the API with the generated client: each example with the ids it
 * names made first, and the event looked for in the event log afterwards. Plans are tried in order until one
 * makes the event; a maker that fails gives way to the next one of its kind (`auth.login` answers a `usr_…` but
 * needs an existing user, `auth.signup` makes one).
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DispatchConnectionError, DispatchError, type DispatchClient, type EventsEvent } from '../../generated/client/index.js';
import { idsIn, plansFor, type Example, type TriggerCatalogue } from './trigger-plan.js';

/** How long an event may take to appear after the call that causes it (a worker emits some: e-mail delivery). */
const EVENT_WAIT_MS = 5_000;
const EVENT_POLL_MS = 250;

/** An address at a domain reserved for examples (RFC 2606): the same people recur in examples, and would be taken. */
const EXAMPLE_ADDRESS = /^([^@\s+]+)@((?:[^@\s]+\.)?example(?:\.com|\.net|\.org)?)$/i;

/** A call that answered: its action and request id, and its result. */
interface Answered {
  action: string;
  requestId: string;
  result: unknown;
}

/** No plan made the event happen; the message says what each came to. */
export class TriggerFailure extends Error {
  override readonly name = 'TriggerFailure';
}

export class Trigger {
  readonly #client: DispatchClient;
  readonly #catalogue: TriggerCatalogue;
  readonly #say: (line: string) => void;
  /** Makes the example addresses of this run its own: `ada@example.com` becomes `ada+<tag>@example.com`. */
  readonly #tag = `t${randomBytes(4).toString('hex')}`;

  constructor(client: DispatchClient, catalogue: TriggerCatalogue, say: (line: string) => void) {
    this.#client = client;
    this.#catalogue = catalogue;
    this.#say = say;
  }

  /** Makes `event` happen and answers it, or throws an Error saying in one line what each plan came to. */
  async run(event: string): Promise<EventsEvent> {
    const outcomes: string[] = [];
    for (const plan of plansFor(this.#catalogue, event)) {
      let answered: Answered;
      try {
        answered = await this.#perform(plan, new Map(), 0);
      } catch (error) {
        outcomes.push(`${plan.action}: ${failure(error)}`);
        continue;
      }
      const found = await this.#emitted(event, answered);
      if (found) return found;
      outcomes.push(`${plan.action} ran (${answered.requestId}) but no ${event} came within ${EVENT_WAIT_MS / 1000} s`);
    }
    throw new TriggerFailure(`Could not trigger ${event}: ${outcomes.join('; ')}.`);
  }

  /** Calls the example's action with the ids it names made first (`made`: the example's ids by the real ones). */
  async #perform(example: Example, made: Map<string, string>, depth: number): Promise<Answered> {
    const payload = this.#own(example.payload);
    for (const ref of idsIn(payload)) {
      if (!made.has(ref.id)) made.set(ref.id, await this.#make(ref.prefix, depth + 1));
      place(payload, ref.path, made.get(ref.id)!);
    }
    const answered = await this.#call(example, payload);
    this.#say(`${answered.action}  ${answered.requestId}`);
    return answered;
  }

  /** A new id of a kind, from the first of its makers that runs. */
  async #make(prefix: string, depth: number): Promise<string> {
    let last: unknown = new Error(`nothing makes a ${prefix}_ id`);
    for (const maker of this.#catalogue.makers.get(prefix) ?? []) {
      try {
        const answered = await this.#perform(maker.example, new Map(), depth);
        const id = maker.path.reduce<unknown>((value, step) => (value as Record<string, unknown> | null)?.[step], answered.result);
        if (typeof id === 'string') return id;
        last = new Error(`${maker.example.action} answered no ${prefix}_ id at ${maker.path.join('.')}`);
      } catch (error) {
        if (error instanceof DispatchConnectionError) throw error;
        last = error;
      }
    }
    throw last;
  }

  async #call(example: Example, payload: unknown): Promise<Answered> {
    const dot = example.action.indexOf('.');
    const [face, action] = [example.action.slice(0, dot), example.action.slice(dot + 1)];
    if (!example.stream) {
      const answer = await this.#client.callWithMeta(face, action, payload);
      return { action: example.action, requestId: answer.requestId, result: answer.data };
    }
    const stream = this.#client.stream(face, action, payload);
    let requestId = '';
    for await (const event of stream) if (event.event === 'start') requestId = event.data.requestId;
    return { action: example.action, requestId, result: await stream };
  }

  /** The event the call caused: one of its request, or (emitted later by a worker) one that names what it made. */
  async #emitted(type: string, answered: Answered): Promise<EventsEvent | undefined> {
    const made = (answered.result as { id?: unknown } | null)?.id;
    const deadline = Date.now() + EVENT_WAIT_MS;
    for (;;) {
      const page = await this.#client.events.list({ types: [type], limit: 100 });
      const found = page.items.find((e) => e.request.id === answered.requestId || (typeof made === 'string' && idsIn(e.data).some((ref) => ref.id === made)));
      if (found || Date.now() >= deadline) return found;
      await sleep(EVENT_POLL_MS);
    }
  }

  /** A copy of an example's payload with its example addresses made this run's own. */
  #own(value: unknown): unknown {
    if (typeof value === 'string') return value.replace(EXAMPLE_ADDRESS, `$1+${this.#tag}@$2`);
    if (Array.isArray(value)) return value.map((v) => this.#own(v));
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.#own(v)]));
    return value;
  }
}

/** Sets the value at `path` in a payload (a plain JSON value this module copied). */
function place(target: unknown, path: readonly string[], value: string): void {
  const parent = path.slice(0, -1).reduce<unknown>((node, step) => (node as Record<string, unknown>)[step], target);
  (parent as Record<string, unknown>)[path.at(-1)!] = value;
}

/** A failed call in a few words. */
function failure(error: unknown): string {
  if (error instanceof DispatchError) return `${error.status} ${error.code}: ${error.message.replace(/\.$/, '')}`;
  if (error instanceof DispatchConnectionError) throw error;
  if (error instanceof Error) return error.message;
  throw error;
}
