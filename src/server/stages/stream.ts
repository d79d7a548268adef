/**
 * Streams: refuses a stream asked of an action that does not stream, and a call that asks for none of an
 * action that answers only as one. Checked with the payload, after the scope and the rate limit (docs/calling.md §
 * Streams; the pipeline's order is route → scope → rate limit → validate), so that a key without the action's
 * scope learns only that. An action that streams when asked has nothing to refuse, and no check.
 */
import type { CallState } from '../call.js';
import { ApiError } from '../../core/errors.js';

/** For action `id`, which never streams. */
export function refuseStream(call: CallState, id: string): void {
  if (call.stream) throw new ApiError('stream_not_supported', `${id} does not stream; ask without options.stream or Accept: text/event-stream.`);
}

/** For action `id`, which answers only as a stream. */
export function requireStream(call: CallState, id: string): void {
  if (!call.stream) throw new ApiError('stream_required', `${id} answers only as a stream: send options.stream: true or Accept: text/event-stream.`);
}
