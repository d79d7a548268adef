/**
 * `batch.run` (docs/contract.md § Batches): several calls in one request, under the batch's key, entity, API version,
 * deadline and idempotency key. Each request passes the same checks as a call of its own (`checks`: route,
 * scope, rate limit, validate), is answered and counted as its own call, and its answer is its result.
 *
 * - `bestEffort`: requests run one after another, each checked as it comes and committed on its own.
 * - `atomic`: every request is checked before any runs (so a refusal is never stored under the batch's
 *   idempotency key, and a retry can succeed); the rate limits of all of them are taken at once or not at
 *   all. Then they run in order inside one transaction: the first failure rolls back every stored record and
 *   every emitted event, and the batch answers `batch_aborted` with the failing request's status.
 */
import type { BatchRunPayload } from '../../generated/server/types.js';
import type { EmittedEvent } from '../store/events.js';
import { CallTransaction } from '../store/transaction.js';
import { assertRouted, batchItem, type BatchCall, type BatchItem, type CallState, type Reply, type RoutedCall } from './call.js';
import { answered, compose, runStages } from './compose.js';
import { callTimeout, Deadline } from './deadline.js';
import { BATCH_ACTION } from '../core/dispatch-types.js';
import { answeredError, errorObject, errorReply, successReply } from './envelope.js';
import { answerable, ApiError, type ErrorMeaning } from '../core/errors.js';
import { commitCall, storeFailure } from './execution.js';
import type { PolicyCheck } from './rate-limit/limiter.js';
import type { Runtime } from './runtime.js';
import { checks } from './stages/checks.js';
import { execute } from './stages/execute.js';
import { completeIdempotency } from './stages/idempotency.js';
import { decide, reportPolicies, retryAfter } from './stages/rate-limit.js';
import type { Stage } from './stage.js';

type ItemResult = { id: string; status: number; data: unknown } | { id: string; status: number; error: unknown };

/**
 * The stage that checks the shape of a batch (size, unique ids, no nesting) and, for an atomic batch, every
 * request. It runs before the batch's idempotency key is claimed: what it refuses is not stored.
 */
export const prepareBatch: Stage = (call, runtime) => {
  assertRouted(call);
  // Every other call passes at once, without a promise.
  return call.action.id === BATCH_ACTION ? prepare(call, runtime) : undefined;
};

async function prepare(call: RoutedCall, runtime: Runtime): Promise<void> {
  // The validate stage checked the payload against the batch action's schema.
  const checked: object = call.envelope.payload;
  const payload = checked as BatchRunPayload;
  const max = runtime.catalogue.platform.limits.batchSize;
  if (payload.requests.length > max) {
    throw new ApiError('batch_too_large', `A batch holds at most ${max} requests; this one has ${payload.requests.length}.`, {
      param: '/payload/requests',
      details: { max, given: payload.requests.length },
    });
  }
  const atomicLimits = payload.mode === 'atomic' ? ([] as PolicyCheck[]) : undefined;
  const ids = new Set<string>();
  const items = payload.requests.map(({ face, action, payload: itemPayload, id = undefined }, index): BatchItem => {
    const itemId = id ?? String(index);
    if (ids.has(itemId)) throw invalidItem(index, 'id', `Request id "${itemId}" appears twice; ids are unique in a batch.`);
    if (face === 'batch') throw invalidItem(index, 'face', 'Batches cannot be nested.');
    ids.add(itemId);
    return batchItem(call, { face, action, payload: itemPayload }, { id: itemId, index, ...(atomicLimits ? { atomicLimits } : {}) });
  });
  call.batch = { mode: payload.mode, items };
  if (atomicLimits) await checkAtomic(call, runtime, items, atomicLimits);
}

/** Runs a prepared batch under the batch's deadline. */
export async function runBatch(call: BatchCall, runtime: Runtime): Promise<Reply> {
  const deadline = new Deadline(callTimeout(call, runtime), call.action.id);
  try {
    return call.batch.mode === 'atomic' ? await runAtomic(call, runtime, deadline) : await runBestEffort(call, runtime, deadline);
  } catch (thrown) {
    return storeFailure(call, runtime, thrown);
  } finally {
    deadline.dispose();
  }
}

async function checkAtomic(call: RoutedCall, runtime: Runtime, items: readonly BatchItem[], limits: PolicyCheck[]): Promise<void> {
  for (const item of items) {
    try {
      await runStages(checks, item, runtime);
    } catch (thrown) {
      const { error, meaning } = answerable(thrown, runtime.catalogue.errors, call.requestId);
      throw error.code === 'atomic_not_supported' ? error : aborted(runtime, items, item, error, meaning, 0);
    }
  }
  // One check for every request's policies: a bucket listed n times is charged n times, all or nothing.
  const decision = await decide(runtime, limits);
  reportPolicies(call, decision);
  if (!decision.allowed) {
    const violated = [...new Set(decision.violated)];
    throw new ApiError('batch_aborted', `The batch would exceed a rate limit (${violated.join(', ')}); nothing ran. Retry in ${decision.retryAfterSeconds} s.`, {
      status: 429,
      details: { violatedPolicies: violated, results: items.map((i) => ({ id: i.item.id, outcome: 'notExecuted' })) },
      headers: retryAfter(decision),
    });
  }
}

/** Every request in one transaction, through the executor; the first failure rolls all of them back. */
async function runAtomic(call: BatchCall, runtime: Runtime, deadline: Deadline): Promise<Reply> {
  const { items } = call.batch;
  const shared = { tx: new CallTransaction(runtime.db), events: [] as EmittedEvent[] };
  const results: ItemResult[] = [];
  const ran: { item: RoutedCall; reply: Reply }[] = [];
  for (const item of items) {
    assertRouted(item);
    item.startedAt = performance.now();
    try {
      const reply = await execute(item, runtime, { deadline, shared });
      results.push({ id: item.item.id, status: 200, data: (reply.body as { data: unknown }).data });
      ran.push({ item, reply });
    } catch (thrown) {
      shared.tx.abandon();
      const resolved = answerable(thrown, runtime.catalogue.errors, call.requestId);
      const abort = aborted(runtime, items, item, resolved.error, resolved.meaning, results.length);
      // The requests that ran were rolled back: each is counted with the batch's refusal, at no cost.
      for (const done of ran) answeredItem(call, done.item, runtime, errorReply(done.item, runtime, abort));
      answeredItem(call, item, runtime, answeredError(item, runtime, resolved));
      return storeFailure(call, runtime, abort);
    }
  }
  const reply = successReply(call, runtime, { mode: 'atomic', results });
  try {
    await commitCall(call, runtime, shared.tx, shared.events, reply);
  } catch (thrown) {
    shared.tx.abandon();
    throw thrown;
  }
  // Counted once their effects are committed, never before: a batch that fails to commit charged nothing.
  for (const done of ran) answeredItem(call, done.item, runtime, done.reply);
  return reply;
}

/** A request of the batch is answered: counted as a call of its own, and the batch no longer is. */
function answeredItem(batch: BatchCall, item: CallState, runtime: Runtime, reply: Reply): void {
  batch.batch.answered = true;
  answered(item, runtime, reply);
}

/** Each request checked as it comes and run through the executor, committed on its own. */
async function runBestEffort(call: BatchCall, runtime: Runtime, deadline: Deadline): Promise<Reply> {
  // Past the deadline a request is not even checked, so it costs no rate limit.
  const runItem = compose([
    () => deadline.throwIfStopped(),
    ...checks,
    (item) => {
      assertRouted(item);
      return execute(item, runtime, { deadline });
    },
  ]);
  const results: ItemResult[] = [];
  for (const item of call.batch.items) {
    item.startedAt = performance.now();
    const reply = await runItem(item, runtime);
    call.batch.answered = true;
    const body = reply.body as { data?: unknown; error?: unknown };
    results.push(reply.status === 200 ? { id: item.item.id, status: 200, data: body.data } : { id: item.item.id, status: reply.status, error: body.error });
    // The rate-limit headers of the batch tell the state after its last request.
    for (const name of ['RateLimit-Policy', 'RateLimit']) {
      const value = item.responseHeaders[name];
      if (value !== undefined) call.responseHeaders[name] = value;
    }
  }
  const reply = successReply(call, runtime, { mode: 'bestEffort', results });
  await completeIdempotency(call, runtime.db, reply);
  return reply;
}

/** `batch_aborted` for an atomic batch whose request `failed` failed (with `error`, which `meaning` says what it answers) after `ran` requests had run. */
function aborted(runtime: Runtime, items: readonly BatchItem[], failed: BatchItem, error: ApiError, meaning: ErrorMeaning, ran: number): ApiError {
  const docs = runtime.catalogue.platform.errorDocsUrl;
  const results = items.map((item, i) => {
    if (item === failed) return { id: item.item.id, outcome: 'failed', status: meaning.status, error: errorObject(error, meaning, docs) };
    return { id: item.item.id, outcome: i < ran ? 'succeeded' : 'notExecuted' };
  });
  const undone = ran === 0 ? '' : ran === 1 ? '; the request before it was rolled back' : `; the ${ran} requests before it were rolled back`;
  return new ApiError('batch_aborted', `Request "${failed.item.id}" failed with ${error.code}${undone}. Nothing in the batch took effect.`, {
    status: meaning.status,
    param: `/payload/requests/${failed.item.index}`,
    details: { results },
    ...(error.headers ? { headers: error.headers } : {}),
  });
}

function invalidItem(index: number, field: string, message: string): ApiError {
  const param = `/payload/requests/${index}/${field}`;
  return new ApiError('payload_invalid', `${param}: ${message}`, { param, details: { errors: [{ param, message, keyword: 'batch' }] } });
}
