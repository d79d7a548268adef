/**
 * The `options` an action's examples are sent with. A stream-only action answers only when a stream is asked
 * for (docs/contract.md § Streaming), so its examples carry `options.stream: true`: a body sent as printed
 * works even from a tool that sets no `Accept: text/event-stream`.
 */
import type { Action } from '../spec/model.js';

export function exampleOptions(action: Action): { options?: { stream: true } } {
  return action.streamOnly ? { options: { stream: true } } : {};
}
