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

/** `YYYY-MM-DDTHH:MM:SS.` of the seconds formatted lately, by second since the epoch. */
const secondHeads = new Map<number, string>();
const SECOND_HEADS = 16;

/**
 * `new Date(ms).toISOString()`, several times faster: a call formats a few instants (its stored time, its
 * idempotency record's expiry and lease), and `toISOString` costs a few microseconds each. The text up to
 * the milliseconds is kept for the last seconds formatted; an invalid instant throws as `toISOString` does.
 */
export function isoTime(ms: number): string {
  // As a Date keeps its time: whole milliseconds, the fraction dropped toward zero.
  const time = Math.trunc(ms);
  // Outside the dates' range (and NaN), toISOString throws.
  if (!(Math.abs(time) <= 8.64e15)) return new Date(ms).toISOString();
  const second = Math.floor(time / 1000);
  let head = secondHeads.get(second);
  if (head === undefined) {
    // The year may take more than four digits, so the head is what precedes the milliseconds and the `Z`.
    head = new Date(second * 1000).toISOString().slice(0, -4);
    if (secondHeads.size >= SECOND_HEADS) secondHeads.clear();
    secondHeads.set(second, head);
  }
  const milliseconds = time - second * 1000;
  return `${head}${milliseconds < 10 ? '00' : milliseconds < 100 ? '0' : ''}${milliseconds}Z`;
}
