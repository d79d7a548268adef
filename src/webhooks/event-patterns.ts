/**
 * The event patterns that webhook endpoints subscribe with and the event log filters by (`*`, `<face>.*`, an
 * exact type; matched by `matchesEventPattern` in src/store/events.ts): each must cover at least one event
 * type of the catalogue, so a typo is refused at its field instead of silently matching nothing.
 */
import { eventTypes } from '../../generated/server/dispatch.js';
import { ApiError } from '../core/errors.js';

const knownFaces = new Set([...eventTypes.values()].map((e) => e.face));

/** Throws `payload_invalid` at `<param>/<i>` for the first pattern that names no known face or event type. */
export function checkEventPatterns(patterns: readonly string[], param: string): void {
  patterns.forEach((pattern, i) => {
    const known = pattern === '*' || (pattern.endsWith('.*') ? knownFaces.has(pattern.slice(0, -2)) : eventTypes.has(pattern));
    if (!known) {
      const at = `${param}/${i}`;
      const message = `no event type matches "${pattern}"`;
      throw new ApiError('payload_invalid', `${at}: ${message}.`, {
        param: at,
        details: { errors: [{ param: at, message, keyword: 'eventType' }], available: [...eventTypes.keys()] },
      });
    }
  });
}
