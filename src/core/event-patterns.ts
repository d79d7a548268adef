/**
 * The event patterns that webhook endpoints subscribe with and the event log filters by (`*`, `<face>.*`, an
 * exact type; matched by `matchesEventPattern` in src/store/events.ts): each must cover at least one event
 * type of the served catalogue, so a typo is refused at its field instead of silently matching nothing.
 */
import type { ServedCatalogue } from './context.js';
import { ApiError } from './errors.js';

/**
 * Throws `payload_invalid` at `<param>/<i>` for the first pattern that names no face or event type of
 * `eventTypes` (the catalogue's, as the handler context gives them).
 */
export function checkEventPatterns(patterns: readonly string[], param: string, eventTypes: ServedCatalogue['eventTypes']): void {
  patterns.forEach((pattern, i) => {
    const known = pattern === '*' || (pattern.endsWith('.*') ? faceHasEvents(eventTypes, pattern.slice(0, -2)) : eventTypes.has(pattern));
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

function faceHasEvents(eventTypes: ServedCatalogue['eventTypes'], face: string): boolean {
  for (const entry of eventTypes.values()) if (entry.face === face) return true;
  return false;
}
