/**
 * Retry schedules as settings write them (`5s,5m,30m,2h`): the webhook deliveries' and the mail queue's.
 */
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Parses a schedule such as `5s,5m,30m,2h` into ms after the first attempt. An empty text means no retries.
 * @throws Error naming `name` when an entry is malformed or the offsets do not grow.
 */
export function parseSchedule(text: string, name = 'schedule'): number[] {
  const entries = text.split(',').map((e) => e.trim()).filter((e) => e !== '');
  const offsets = entries.map((entry) => {
    const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(entry);
    if (!match) throw new Error(`${name}: "${entry}" is not a duration such as 500ms, 5s, 5m or 2h.`);
    return Math.round(Number(match[1]) * UNITS[match[2]!]!);
  });
  offsets.forEach((offset, i) => {
    if (offset <= 0 || (i > 0 && offset <= offsets[i - 1]!)) throw new Error(`${name}: each retry must come after the one before (${text}).`);
  });
  return offsets;
}
