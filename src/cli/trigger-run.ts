/**
 * Runs what trigger-plan.ts read through the API with the generated client, in the API version of the served
 * document: an event's fixture step by step, each reference (`"${name.field}"`) replaced by the value an earlier
 * step answered, a step that expects an error going on when it answers it; or else the plans, each example
 * with the ids it names made first, tried in order until one makes the event (a maker that fails gives way to
 * the next one of its kind: `auth.login` answers a `usr_…` but needs an existing user, `auth.signup` makes one).
 * The event is then looked for in the event log: one of its type that a call of the run caused.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DispatchConnectionError, DispatchError, type DispatchClient, type EventsEvent } from '../../generated/client/index.js';
import { referencesIn, setAt, valueAt } from '../spec/trigger-reference.js';
import { idsIn, MAX_DEPTH, plansFor, type Example, type FixtureStep, type TriggerCatalogue } from './trigger-plan.js';

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

/** The event could not be made to happen: the message says in one line what the fixture or each plan came to. */
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

  /** Makes `event` happen and answers it, or throws a TriggerFailure saying in one line what went wrong. */
  async run(event: string): Promise<EventsEvent> {
    const fixture = this.#catalogue.fixtures.get(event);
    if (fixture) return this.#runFixture(event, fixture);
    const outcomes: string[] = [];
    for (const plan of plansFor(this.#catalogue, event)) {
      let answered: Answered;
      try {
        answered = await this.#perform(plan, new Map(), 0);
      } catch (error) {
        outcomes.push(`${plan.action}: ${failure(error)}`);
        continue;
      }
      const made = (answered.result as { id?: unknown } | null)?.id;
      const found = await this.#emitted(event, [answered.requestId], typeof made === 'string' ? made : undefined);
      if (found) return found;
      outcomes.push(`${plan.action} ran (${answered.requestId}) but no ${event} came within ${EVENT_WAIT_MS / 1000} s`);
    }
    throw new TriggerFailure(`Could not trigger ${event}: ${outcomes.join('; ')}.`);
  }

  /** Runs a fixture's steps in order, then finds the event one of their calls caused. */
  async #runFixture(event: string, steps: FixtureStep[]): Promise<EventsEvent> {
    const results = new Map<string, unknown>();
    const requests: string[] = [];
    for (const [i, step] of steps.entries()) {
      const at = `step ${i + 1} (${step.call})`;
      const payload = this.#own(step.payload);
      for (const text of referencesIn(payload)) {
        const value = text.reference && valueAt(results.get(text.reference.step), text.reference.path);
        if (value === undefined) throw new TriggerFailure(`Could not trigger ${event}: ${at} needs "${text.text}", which no earlier step answered.`);
        setAt(payload, text.path, value);
      }
      let answered: Answered;
      try {
        answered = await this.#call({ action: step.call, stream: step.stream === true }, payload);
      } catch (error) {
        // The error the step expects: its effects are kept, the event among them.
        if (error instanceof DispatchError && step.error !== undefined && error.code === step.error && error.requestId) {
          this.#say(`${step.call}  ${error.requestId}  ${error.code}, as expected`);
          requests.push(error.requestId);
          continue;
        }
        throw new TriggerFailure(`Could not trigger ${event}: ${at} answered ${failure(error)}.`);
      }
      this.#say(`${answered.action}  ${answered.requestId}`);
      if (step.error !== undefined) throw new TriggerFailure(`Could not trigger ${event}: ${at} succeeded where it should answer ${step.error}.`);
      requests.push(answered.requestId);
      if (step.name !== undefined) results.set(step.name, answered.result);
    }
    const found = await this.#emitted(event, requests);
    if (found) return found;
    throw new TriggerFailure(`Could not trigger ${event}: its fixture ran (${requests.join(', ')}) but no ${event} came within ${EVENT_WAIT_MS / 1000} s.`);
  }

  /** Calls the example's action with the ids it names made first (`made`: the example's ids by the real ones). */
  async #perform(example: Example, made: Map<string, string>, depth: number): Promise<Answered> {
    const payload = this.#own(example.payload);
    for (const ref of idsIn(payload)) {
      if (!made.has(ref.id)) made.set(ref.id, await this.#make(ref.prefix, depth + 1));
      setAt(payload, ref.path, made.get(ref.id)!);
    }
    const answered = await this.#call(example, payload);
    this.#say(`${answered.action}  ${answered.requestId}`);
    return answered;
  }

  /** A new id of a kind, from the first of its makers that runs. */
  async #make(prefix: string, depth: number): Promise<string> {
    // Makers that need each other's ids (a catalogue's own faces may have such) would otherwise recurse for ever.
    if (depth > MAX_DEPTH) throw new Error(`making a ${prefix}_ id needs more than ${MAX_DEPTH} ids made first`);
    let last: unknown = new Error(`nothing makes a ${prefix}_ id`);
    for (const maker of this.#catalogue.makers.get(prefix) ?? []) {
      try {
        const answered = await this.#perform(maker.example, new Map(), depth);
        const id = valueAt(answered.result, maker.path);
        if (typeof id === 'string') return id;
        last = new Error(`${maker.example.action} answered no ${prefix}_ id at ${maker.path.join('.')}`);
      } catch (error) {
        if (error instanceof DispatchConnectionError) throw error;
        last = error;
      }
    }
    throw last;
  }

  /** One call, in the version the served document describes (that its examples and fixtures are valid in). */
  async #call(call: { action: string; stream: boolean }, payload: unknown): Promise<Answered> {
    const dot = call.action.indexOf('.');
    const [face, action] = [call.action.slice(0, dot), call.action.slice(dot + 1)];
    const options = this.#catalogue.version ? { apiVersion: this.#catalogue.version } : {};
    if (!call.stream) {
      const answer = await this.#client.callWithMeta(face, action, payload, options);
      return { action: call.action, requestId: answer.requestId, result: answer.data };
    }
    const stream = this.#client.stream(face, action, payload, options);
    let requestId = '';
    for await (const event of stream) if (event.event === 'start') requestId = event.data.requestId;
    return { action: call.action, requestId, result: await stream };
  }

  /**
   * The event the calls caused: the newest of its type made by one of their requests, or (emitted later by a
   * worker) one that names `made`, what the call made.
   */
  async #emitted(type: string, requests: readonly string[], made?: string): Promise<EventsEvent | undefined> {
    const deadline = Date.now() + EVENT_WAIT_MS;
    for (;;) {
      const page = await this.#client.events.list({ types: [type], limit: 100 });
      const found = page.items.find((e) => requests.includes(e.request.id) || (made !== undefined && idsIn(e.data).some((ref) => ref.id === made)));
      if (found || Date.now() >= deadline) return found;
      await sleep(EVENT_POLL_MS);
    }
  }

  /** A copy of a payload with its example addresses made this run's own. */
  #own<T>(value: T): T;
  #own(value: unknown): unknown {
    if (typeof value === 'string') return value.replace(EXAMPLE_ADDRESS, `$1+${this.#tag}@$2`);
    if (Array.isArray(value)) return value.map((v) => this.#own(v));
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.#own(v)]));
    return value;
  }
}

/** A failed call in a few words. */
function failure(error: unknown): string {
  if (error instanceof DispatchError) return `${error.status} ${error.code}: ${error.message.replace(/\.$/, '')}`;
  if (error instanceof DispatchConnectionError) throw error;
  if (error instanceof Error) return error.message;
  throw error;
}
