/**
 * The calls of `POST /do` counted by face, action and status, and their server time as a histogram, kept in
 * plain numbers and written in the Prometheus text format when `GET /metrics` is scraped, as prom-client
 * writes a counter and a histogram (the same lines in the same order). Every call is observed, its refusals
 * included, so this is on the hot path: prom-client hashes a label set and makes a closure on every update,
 * where a call here costs two map lookups and a few additions.
 */

/** Upper bounds of the histogram's buckets, in seconds. */
const BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30];

const CALLS = 'dispatch_calls_total';
const DURATION = 'dispatch_call_duration_seconds';

/** The calls of one face, action and status. */
interface StatusCount {
  labels: string;
  count: number;
}

/** One face and action: its counts by status, and the histogram of its calls' times. */
interface Series {
  labels: string;
  statuses: Map<number, StatusCount>;
  /** Observations in each bucket alone (not cumulative), the last for those above every bound. */
  buckets: number[];
  sum: number;
  count: number;
}

export class CallCounts {
  /** Series by face, then action: no label text is made for a call that finds its series. */
  readonly #series = new Map<string, Map<string, Series>>();
  /** Series (from their first time) and status counts in the order each was first observed, as prom-client writes them. */
  readonly #seriesInOrder: Series[] = [];
  readonly #countsInOrder: StatusCount[] = [];

  observe(face: string, action: string, status: number, seconds: number): void {
    let actions = this.#series.get(face);
    if (!actions) this.#series.set(face, (actions = new Map()));
    let series = actions.get(action);
    if (!series) {
      const labels = `face="${escapeLabel(face)}",action="${escapeLabel(action)}"`;
      actions.set(action, (series = { labels, statuses: new Map(), buckets: new Array<number>(BUCKETS.length + 1).fill(0), sum: 0, count: 0 }));
    }
    let counted = series.statuses.get(status);
    if (!counted) {
      series.statuses.set(status, (counted = { labels: `${series.labels},status="${status}"`, count: 0 }));
      this.#countsInOrder.push(counted);
    }
    counted.count++;
    // A time that is no number is not one to add up (prom-client refused it too); the call still counts.
    if (!Number.isFinite(seconds)) return;
    if (series.count === 0) this.#seriesInOrder.push(series);
    let bucket = 0;
    while (bucket < BUCKETS.length && seconds > BUCKETS[bucket]!) bucket++;
    series.buckets[bucket]!++;
    series.sum += seconds;
    series.count++;
  }

  /** Both families in the text exposition format (not OpenMetrics, whose counters and end differ). */
  exposition(): string {
    const calls = [`# HELP ${CALLS} Calls of POST /do by face, action and status.`, `# TYPE ${CALLS} counter`];
    for (const { labels, count } of this.#countsInOrder) calls.push(`${CALLS}{${labels}} ${count}`);
    const durations = [`# HELP ${DURATION} Server time of POST /do calls.`, `# TYPE ${DURATION} histogram`];
    for (const series of this.#seriesInOrder) {
      let cumulative = 0;
      BUCKETS.forEach((bound, i) => {
        cumulative += series.buckets[i]!;
        durations.push(`${DURATION}_bucket{le="${bound}",${series.labels}} ${cumulative}`);
      });
      durations.push(`${DURATION}_bucket{le="+Inf",${series.labels}} ${series.count}`);
      durations.push(`${DURATION}_sum{${series.labels}} ${series.sum}`, `${DURATION}_count{${series.labels}} ${series.count}`);
    }
    return `${calls.join('\n')}\n\n${durations.join('\n')}\n`;
  }
}

/** A label value as the text format escapes it: backslash, double quote and line feed. */
function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
