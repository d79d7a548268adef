/**
 * The usage stage, run after every answer (the runtime's after-answer hook): one record per call, per
 * batch request and per stream (when its terminal event is sent), refusals after authentication included.
 * A call refused before its key is known (401) is not attributable: only `/metrics` counts it. A batch
 * envelope is not a call, its requests are; a replayed batch, whose requests did not run again, is
 * recorded as one replay. Only a call that succeeded is priced; a replay is recorded at zero cost.
 */
import type { AfterAnswer } from '../runtime/call.js';
import { BATCH_ACTION, type Catalogue } from '../runtime/dispatch-types.js';
import { newId } from '../store/secrets.js';
import { callCostNanos, nanosToDecimal } from './cost.js';
import type { UsageRecorder } from './recorder.js';

const NAME_LENGTH = 64;

export function usageStage(recorder: UsageRecorder, catalogue: Catalogue): AfterAnswer {
  const currency = catalogue.platform.currency;
  return (call, reply) => {
    if (!call.key || !call.mode) return;
    const action = call.action;
    if (action?.id === BATCH_ACTION && !call.replayed) return;
    const units = call.units ?? {};
    const succeeded = reply.status < 400;
    const cost = action && succeeded ? callCostNanos(action.cost, units, call.replayed === true) : 0n;
    recorder.record({
      id: newId('use'),
      request_id: call.requestId,
      at: new Date().toISOString(),
      key_id: call.key.id,
      mode: call.mode,
      entity_id: call.entityId ?? '',
      // A call refused before routing names what it asked for (bounded: it is the caller's text).
      face: action?.face ?? (call.envelope?.face ?? '').slice(0, NAME_LENGTH),
      action: action?.name ?? (call.envelope?.action ?? '').slice(0, NAME_LENGTH),
      api_version: call.apiVersion ?? null,
      status: reply.status,
      error_code: succeeded ? null : ((reply.body as { error?: { code?: string } }).error?.code ?? null),
      latency_ms: Math.round((performance.now() - call.startedAt) * 100) / 100,
      units: JSON.stringify(units),
      cost: nanosToDecimal(cost),
      currency,
      replayed: call.replayed ? 1 : 0,
    }, cost);
  };
}
