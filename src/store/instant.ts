/**
 * Instants from RFC 3339 date-times, as JSON Schema's `date-time` format accepts them: leap seconds
 * included. JavaScript dates have no leap second, so `23:59:60` is read as the instant right after
 * `23:59:59` (the first of the next minute), and never turns into an invalid Date.
 */
const LEAP_SECOND = /^(.*T\d{2}:\d{2}:)60(\.\d+)?(.*)$/i;

/** Milliseconds since the epoch, or NaN when `text` is not a date-time. */
export function parseInstant(text: string): number {
  const time = Date.parse(text);
  if (!Number.isNaN(time)) return time;
  const leap = LEAP_SECOND.exec(text);
  return leap ? Date.parse(`${leap[1]}59${leap[3]}`) + 1000 : NaN;
}

/** The ISO form (`toISOString`) of a date-time, leap seconds included. */
export function isoInstant(text: string): string {
  return new Date(parseInstant(text)).toISOString();
}
