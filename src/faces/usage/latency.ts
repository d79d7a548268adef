/**
 * Latency histograms of usage rollups: fixed buckets (upper bounds in ms), so that rollups of any minutes,
 * keys or actions add up bucket by bucket and percentiles come from the sums without the raw records.
 * A percentile is read as the upper bound of the bucket it falls in: at most one bucket's width too high.
 */
export const LATENCY_BOUNDS_MS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 30_000, 120_000] as const;

/** Column names of the buckets in `usage_rollups`: `l00` … `l15` (the last counts what is above every bound). */
export const LATENCY_COLUMNS = Array.from({ length: LATENCY_BOUNDS_MS.length + 1 }, (_, i) => `l${String(i).padStart(2, '0')}`) as LatencyColumn[];

export type LatencyColumn = `l${string}`;

/** The bucket a latency falls in. */
export function latencyBucket(ms: number): number {
  for (let i = 0; i < LATENCY_BOUNDS_MS.length; i++) if (ms <= LATENCY_BOUNDS_MS[i]!) return i;
  return LATENCY_BOUNDS_MS.length;
}

/**
 * The `q` quantile (0..1) of a histogram, as the upper bound of its bucket (ms); null when it is empty. The
 * last bucket has no upper bound: a quantile in it reads as 120 000 ms, meaning "at least".
 */
export function quantile(counts: readonly number[], q: number): number | null {
  const total = counts.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i]!;
    if (seen >= rank) return LATENCY_BOUNDS_MS[i] ?? LATENCY_BOUNDS_MS.at(-1)!;
  }
  return LATENCY_BOUNDS_MS.at(-1)!;
}
