/**
 * Execution: the action's handler runs under the call's time-out. When it fires, the handler's
 * AbortSignal aborts (so its I/O stops) and the caller gets 504 at once, whether or not the handler
 * listens. Once execution has started, every outcome is a Reply (errors included), which is what an
 * idempotency record stores; anything that is not an ApiError becomes a 500 without its details.
 */
import { platform } from '../../../generated/server/platform.js';
import { handlers } from '../../../generated/server/handlers.js';
import type { CallState, Reply, RuntimeDeps } from '../call.js';
import { errorBody, responseMeta } from '../envelope.js';
import type { HandlerContext } from '../context.js';
import { ApiError, toApiError } from '../errors.js';

type AnyHandler = (payload: unknown, ctx: HandlerContext) => Promise<unknown>;

export async function execute(call: CallState, deps: RuntimeDeps): Promise<Reply> {
  try {
    const data = await runHandler(call, deps);
    return { status: 200, headers: call.responseHeaders, body: { data, meta: responseMeta(call.requestId, call.startedAt, deps.serverVersion) } };
  } catch (thrown) {
    const error = toApiError(thrown, call.requestId);
    const meta = responseMeta(call.requestId, call.startedAt, deps.serverVersion);
    return { status: error.status, headers: { ...call.responseHeaders, ...error.headers }, body: errorBody(error, meta) };
  }
}

async function runHandler(call: CallState, deps: RuntimeDeps): Promise<unknown> {
  const action = call.action!;
  const faceHandlers = (handlers as unknown as Record<string, Record<string, AnyHandler>>)[action.face]!;
  const timeoutMs = call.envelope.options.timeout ?? platform.limits.timeout.default;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new ApiError('timeout', `${action.id} did not finish within ${timeoutMs} ms.`, { details: { timeoutMs } });
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  const ctx: HandlerContext = {
    requestId: call.requestId,
    mode: call.mode!,
    entityId: call.entityId!,
    key: call.key!,
    apiVersion: call.apiVersion!,
    signal: controller.signal,
    db: deps.db,
    providers: deps.providers,
  };
  try {
    return await Promise.race([faceHandlers[action.name]!(call.envelope.payload, ctx), timedOut]);
  } catch (error) {
    // A handler that passes the abort reason on rethrows our own timeout error.
    if (controller.signal.aborted && !(error instanceof ApiError)) throw controller.signal.reason as ApiError;
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
