/**
 * The usage stage, run after every answer (the runtime's after-answer hook): one record per call, per
 * batch request and per stream (as its terminal event is sent), refusals after authentication included.
 * A call refused before its key is known (401) is not attributable: only `/metrics` counts it. A batch
 * envelope is not a call, its requests are; it is recorded only when none of its requests was (a batch
 * refused as a whole, or replayed, since its requests did not run again). Only a call that succeeded is
 * priced; a replay is recorded at zero cost.
 */
import type { AfterAnswer } from '../../core/answer.js';
import { BATCH_ACTION } from '../../core/dispatch-types.js';
import { isoTime } from '../../store/instant.js';
import { newId } from '../../store/secrets.js';
import { callCostNanos, nanosToDecimal } from './cost.js';
import type { UsageRecorder } from './recorder.js';

/**
 * What a call refused before routing is recorded under: the face it asked for when that face exists, and
 * `(unknown)` for a name the catalogue does not have, so that callers' typos (or junk) cannot grow the
 * rollups, which are kept for a year; the record's error code says what was not found.
 */
const UNKNOWN = '(unknown)';

/** `currency` labels every record's cost; `faces` are the faces served, the names a record may carry. */
export function usageStage(recorder: UsageRecorder, { currency, faces }: { currency: string; faces: ReadonlyMap<string, unknown> }): AfterAnswer {
  const knownFace = (name: string | undefined) => (name !== undefined && faces.has(name) ? name : UNKNOWN);
  return (call, reply) => {
    if (!call.key || !call.mode) return;
    const action = call.action;
    if (action?.id === BATCH_ACTION && !call.replayed && (reply.status < 400 || call.batch?.answered)) return;
    // A copy: a handler still running after the answer (a 499) may report more, which this call did not pay.
    const units = { ...call.units };
    const succeeded = reply.status < 400;
    // One clock reading: the id sorts by the same instant as `at`, and so does the rollup minute.
    const now = Date.now();
    const cost = action && succeeded ? callCostNanos(action.cost, units, call.replayed === true) : 0n;
    recorder.record({
      id: newId('use', now),
      request_id: call.requestId,
      at: isoTime(now),
      key_id: call.key.id,
      mode: call.mode,
      entity_id: call.entityId ?? '',
      face: action?.face ?? knownFace(call.envelope?.face),
      action: action?.name ?? UNKNOWN,
      api_version: call.apiVersion ?? null,
      status: reply.status,
      error_code: succeeded ? null : ((reply.body as { error?: { code?: string } }).error?.code ?? null),
      latency_ms: Math.round((performance.now() - call.startedAt) * 100) / 100,
      units: JSON.stringify(units),
      cost: nanosToDecimal(cost),
      currency,
      replayed: call.replayed ? 1 : 0,
    }, cost, units);
  };
}
