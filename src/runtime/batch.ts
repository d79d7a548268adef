/**
 * `batch.run` (API.md §10): several calls in one request, under the batch's key, entity, API version,
 * deadline and idempotency key. Each request goes through the stages a call of its own would (route, scope,
 * rate limit, validate) and is counted as its own call.
 *
 * - `bestEffort`: requests run one after another, each checked as it comes and committed on its own.
 * - `atomic`: every request is checked before any runs (so a refusal is never stored under the batch's
 *   idempotency key, and a retry can succeed); the rate limits of all of them are taken at once or not at
 *   all. Then they run in order inside one transaction: the first failure rolls back every stored record and
 *   every emitted event, and the batch answers `batch_aborted` with the failing request's status.
 */
import { platform } from '../../generated/server/platform.js';
import type { BatchRunPayload } from '../../generated/server/types.js';
import type { EmittedEvent } from '../store/events.js';
import { CallTransaction } from '../store/transaction.js';
import type { CallState, Reply, RuntimeDeps } from './call.js';
import { Deadline } from './deadline.js';
import { errorObject, successReply } from './envelope.js';
import { ApiError, toApiError } from './errors.js';
import { invoke } from './invoke.js';
import { commitCall, storeFailure } from './stages/execute.js';
import { completeIdempotency } from './stages/idempotency.js';
import { decide, policiesFor, rateLimit, reportPolicies, retryAfter } from './stages/rate-limit.js';
import { route } from './stages/route.js';
import { scope } from './stages/scope.js';
import { validate } from './stages/validate.js';

interface BatchItem {
  /** The caller's id for the request, or its position. */
  id: string;
  index: number;
  /** The request as a call of its own, sharing the batch's key, entity, version and request id. */
  call: CallState;
}

export interface PreparedBatch {
  mode: BatchRunPayload['mode'];
  items: BatchItem[];
}

type ItemResult = { id: string; status: number; data: unknown } | { id: string; status: number; error: ReturnType<typeof errorObject> };

/**
 * Checks the shape of the batch (size, unique ids, no nesting) and, for an atomic batch, every request.
 * Runs before the batch's idempotency key is claimed: what it refuses is not stored.
 */
export async function prepareBatch(call: CallState, deps: RuntimeDeps): Promise<void> {
  const payload = call.envelope.payload as unknown as BatchRunPayload;
  const max = platform.limits.batchSize;
  if (payload.requests.length > max) {
    throw new ApiError('batch_too_large', `A batch holds at most ${max} requests; this one has ${payload.requests.length}.`, {
      param: '/payload/requests',
      details: { max, given: payload.requests.length },
    });
  }
  const ids = new Set<string>();
  const items = payload.requests.map((request, index): BatchItem => {
    const id = request.id ?? String(index);
    if (ids.has(id)) throw invalidItem(index, 'id', `Request id "${id}" appears twice; ids are unique in a batch.`);
    if (request.face === 'batch') throw invalidItem(index, 'face', 'Batches cannot be nested.');
    ids.add(id);
    return { id, index, call: itemCall(call, request) };
  });
  call.batch = { mode: payload.mode, items };
  if (payload.mode === 'atomic') await checkAtomic(call, deps, items);
}

export async function runBatch(call: CallState, deps: RuntimeDeps): Promise<Reply> {
  const deadline = new Deadline(call);
  try {
    return call.batch!.mode === 'atomic' ? await runAtomic(call, deps, deadline) : await runBestEffort(call, deps, deadline);
  } finally {
    deadline.dispose();
  }
}

async function checkAtomic(call: CallState, deps: RuntimeDeps, items: BatchItem[]): Promise<void> {
  for (const item of items) {
    check(items, item, () => route(item.call));
    const action = item.call.action!;
    if (!action.atomic) {
      throw new ApiError('atomic_not_supported', `Request "${item.id}" calls ${action.id}, which has effects outside the store; run it in a bestEffort batch or on its own.`, {
        param: `/payload/requests/${item.index}`,
        details: { request: item.id, action: action.id },
      });
    }
    check(items, item, () => {
      scope(item.call);
      validate(item.call);
    });
  }
  // One check for every request's policies: a bucket listed n times is charged n times, all or nothing.
  const decision = await decide(deps, items.flatMap((item) => policiesFor(item.call)));
  reportPolicies(call, decision);
  if (!decision.allowed) {
    const violated = [...new Set(decision.violated)];
    throw new ApiError('batch_aborted', `The batch would exceed a rate limit (${violated.join(', ')}); nothing ran. Retry in ${decision.retryAfterSeconds} s.`, {
      status: 429,
      details: { violatedPolicies: violated, results: items.map((i) => ({ id: i.id, outcome: 'notExecuted' })) },
      headers: retryAfter(decision),
    });
  }
}

async function runAtomic(call: CallState, deps: RuntimeDeps, deadline: Deadline): Promise<Reply> {
  const { items } = call.batch!;
  const tx = new CallTransaction(deps.db);
  const events: EmittedEvent[] = [];
  const results: ItemResult[] = [];
  for (const item of items) {
    const started = performance.now();
    try {
      const data = await deadline.run(invoke(item.call, deps, { tx, events, signal: deadline.signal }));
      results.push({ id: item.id, status: 200, data });
      deps.observe(item.call, 200, started);
    } catch (thrown) {
      tx.abandon();
      const error = toApiError(thrown, call.requestId);
      deps.observe(item.call, error.status, started);
      return storeFailure(call, deps, aborted(items, item, error, results.length));
    }
  }
  const reply = successReply(call, deps.serverVersion, { mode: 'atomic', results });
  try {
    await commitCall(call, deps, tx, events, reply);
    return reply;
  } catch (thrown) {
    tx.abandon();
    return storeFailure(call, deps, thrown);
  }
}

async function runBestEffort(call: CallState, deps: RuntimeDeps, deadline: Deadline): Promise<Reply> {
  const results: ItemResult[] = [];
  for (const item of call.batch!.items) {
    results.push(await runItem(item, deps, deadline));
    // The rate-limit headers of the batch tell the state after its last request.
    for (const name of ['RateLimit-Policy', 'RateLimit']) {
      const value = item.call.responseHeaders[name];
      if (value !== undefined) call.responseHeaders[name] = value;
    }
  }
  const reply = successReply(call, deps.serverVersion, { mode: 'bestEffort', results });
  await completeIdempotency(call, deps.db, reply);
  return reply;
}

/** One request of a best-effort batch: checked, run and committed on its own. */
async function runItem(item: BatchItem, deps: RuntimeDeps, deadline: Deadline): Promise<ItemResult> {
  const started = performance.now();
  const tx = new CallTransaction(deps.db);
  const events: EmittedEvent[] = [];
  try {
    // Past the deadline a request is not even checked, so it costs no rate limit.
    deadline.signal.throwIfAborted();
    route(item.call);
    scope(item.call);
    await rateLimit(item.call, deps);
    validate(item.call);
    const data = await deadline.run(invoke(item.call, deps, { tx, events, signal: deadline.signal }));
    await commitCall(item.call, deps, tx, events);
    deps.observe(item.call, 200, started);
    return { id: item.id, status: 200, data };
  } catch (thrown) {
    tx.abandon();
    const error = toApiError(thrown, item.call.requestId);
    deps.observe(item.call, error.status, started);
    return { id: item.id, status: error.status, error: errorObject(error) };
  }
}

/** A request as a call of its own. It shares the batch's request id, so its events point at the batch. */
function itemCall(batch: CallState, request: BatchRunPayload['requests'][number]): CallState {
  const idempotencyKey = batch.envelope.options.idempotencyKey;
  return {
    requestId: batch.requestId,
    startedAt: batch.startedAt,
    headers: {},
    envelope: { face: request.face, action: request.action, payload: request.payload, options: idempotencyKey === undefined ? {} : { idempotencyKey } },
    key: batch.key,
    mode: batch.mode,
    entityId: batch.entityId,
    apiVersion: batch.apiVersion,
    responseHeaders: {},
  };
}

/** Runs a check of an atomic batch's request; a refusal aborts the batch before anything ran. */
function check(items: BatchItem[], item: BatchItem, stage: () => void): void {
  try {
    stage();
  } catch (thrown) {
    throw aborted(items, item, toApiError(thrown, item.call.requestId), 0);
  }
}

/** `batch_aborted` for an atomic batch whose request `failed` failed after `ran` requests had run. */
function aborted(items: BatchItem[], failed: BatchItem, error: ApiError, ran: number): ApiError {
  const results = items.map((item, i) => {
    if (item === failed) return { id: item.id, outcome: 'failed', status: error.status, error: errorObject(error) };
    return { id: item.id, outcome: i < ran ? 'succeeded' : 'notExecuted' };
  });
  const undone = ran === 0 ? '' : ran === 1 ? '; the request before it was rolled back' : `; the ${ran} requests before it were rolled back`;
  return new ApiError('batch_aborted', `Request "${failed.id}" failed with ${error.code}${undone}. Nothing in the batch took effect.`, {
    status: error.status,
    param: `/payload/requests/${failed.index}`,
    details: { results },
    ...(error.headers ? { headers: error.headers } : {}),
  });
}

function invalidItem(index: number, field: string, message: string): ApiError {
  const param = `/payload/requests/${index}/${field}`;
  return new ApiError('payload_invalid', `${param}: ${message}`, { param, details: { errors: [{ param, message, keyword: 'batch' }] } });
}
