/**
 * Streams: refuses a stream asked of an action that does not stream, and a call that asks for none of an
 * action that answers only as one. Checked with the payload, after the scope and the rate limit (docs/calling.md §
 * Streams; the pipeline's order is route → scope → rate limit → validate), so that a key without the action's
 * scope learns only that.
 */
import { assertRouted } from '../call.js';
import type { Stage } from '../stage.js';
import { ApiError } from '../../core/errors.js';

export const stream: Stage = (call) => {
  assertRouted(call);
  const action = call.action;
  if (call.stream && !action.stream) {
    throw new ApiError('stream_not_supported', `${action.id} does not stream; ask without options.stream or Accept: text/event-stream.`);
  }
  if (!call.stream && action.streamOnly) {
    throw new ApiError('stream_required', `${action.id} answers only as a stream: send options.stream: true or Accept: text/event-stream.`);
  }
};
