// The headline numbers (calls, error rate, p50/p99 latency, cost) and the three time charts, from one
// `usage.summary` grouped by minute or hour over the current range, filled in with empty buckets. Without
// calls in the range it shows the "no calls yet" card with an example call instead of empty charts.
import { createCharts } from './charts.js';
import { $, setText } from './dom.js';
import { formatClock, formatCount, formatLatency, formatMoney, formatRate, formatUnits } from './format.js';
import { faceFilter, filterOf, summary } from './reads.js';
import { currentRange, view } from './view.js';

/** Refreshed at most once a second (every 5 s when the key's rate limit runs low), and every 15 s without traffic. */
export const SERIES_MIN_MS = 1_000;
export const SERIES_SLOW_MS = 5_000;
export const SERIES_PERIOD_MS = 15_000;

/** Drawn on the first range with calls, then updated. */
let charts;

const emptyTotals = () => ({ calls: 0, errors: 0, replayed: 0, units: {}, cost: '0', latencyMs: { p50: null, p99: null } });

export async function refreshSeries(s) {
  if (!s.facesLoaded) return s.overview.request(true);
  const generation = view.generation;
  const range = currentRange();
  const faces = faceFilter(s);
  const result = faces.none
    ? { currency: s.currency, groups: [], totals: emptyTotals() }
    : await summary(s, { from: range.from, groupBy: [range.bucket], filter: filterOf(faces) });
  if (!s.active || generation !== view.generation) return;
  renderSeries(s, range, result);
}

function renderSeries(s, range, result) {
  const totals = result.totals ?? emptyTotals();
  const currency = result.currency ?? s.currency;
  setText('stat-calls', formatCount(totals.calls));
  setText('stat-calls-sub', totals.replayed ? `${range.short} · ${formatCount(totals.replayed)} replayed` : range.short);
  setText('stat-error-rate', formatRate(totals.errors, totals.calls));
  setText('stat-errors', totals.errors === 1 ? '1 error' : totals.errors ? `${formatCount(totals.errors)} errors` : 'no errors');
  $('stat-errors').classList.toggle('err-count', totals.errors > 0);
  setText('stat-p50', formatLatency(totals.latencyMs?.p50 ?? null));
  setText('stat-p99', formatLatency(totals.latencyMs?.p99 ?? null));
  setText('stat-cost', formatMoney(totals.cost, currency));
  setText('stat-cost-sub', formatUnits(totals.units) || String(currency).toUpperCase());
  setText('updated', `Updated ${formatClock(new Date())}${s.slow ? ' · refreshing less often to stay within the key’s rate limit' : ''}`);

  const empty = totals.calls === 0;
  $('empty').hidden = !empty;
  $('charts').hidden = empty;
  if (empty) return;
  charts ??= createCharts({ calls: $('chart-calls'), latency: $('chart-latency'), cost: $('chart-cost') });
  const byTime = new Map(result.groups.map((g) => [Date.parse(g.time), g]));
  const points = [];
  for (let i = 0; i < range.buckets; i += 1) {
    const at = range.fromMs + i * range.size;
    const g = byTime.get(at);
    points.push({
      t: at / 1000,
      calls: g?.calls ?? 0,
      errors: g?.errors ?? 0,
      p50: g?.latencyMs?.p50 ?? null,
      p99: g?.latencyMs?.p99 ?? null,
      cost: g ? Number(g.cost) : 0,
    });
  }
  charts.update(points, currency);
}
