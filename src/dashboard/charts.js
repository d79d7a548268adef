// The three time charts (calls and errors, latency p50/p99, cost), drawn with uPlot. Each chart follows
// the width of its card; `update` takes the summary's time groups, filled in with empty buckets.
import uPlot from './uPlot.esm.js';
import { formatCompact, formatLatency, formatMoneyAxis } from './format.js';

const AXIS = '#64748b';
const GRID = '#eef1f6';
const FONT = '11px ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const HEIGHT = 190;

const axis = (values, size = 56) => ({
  stroke: AXIS,
  font: FONT,
  size,
  gap: 6,
  grid: { stroke: GRID, width: 1 },
  ticks: { show: false },
  values,
});

/** Points of a series that stand alone between gaps: without them a lone minute of calls would not show. */
function isolated(u, seriesIdx) {
  const values = u.data[seriesIdx];
  const found = [];
  for (let i = 0; i < values.length; i += 1) {
    if (values[i] !== null && values[i] !== undefined && (values[i - 1] ?? null) === null && (values[i + 1] ?? null) === null) found.push(i);
  }
  return found;
}

const line = (label, stroke, fill, value) => ({
  label,
  stroke,
  width: 2,
  ...(fill ? { fill } : {}),
  points: {
    show: (u) => u.data[0].length <= 30,
    filter: (u, seriesIdx, show) => (show ? null : isolated(u, seriesIdx)),
    size: 5,
    fill: stroke,
  },
  // The legend reads the values under the cursor; away from the chart it names the series only.
  value: (u, v, seriesIdx, dataIdx) => (dataIdx === null || dataIdx === undefined ? '' : v === null || v === undefined ? '—' : value(v)),
  spanGaps: false,
});

/** The y scale from zero to a little above the largest value (1 when everything is zero). */
const fromZero = (u, min, max) => [0, max > 0 ? max * 1.12 : 1];

function chart(container, series, yValues) {
  const width = () => Math.max(200, Math.floor(container.clientWidth));
  const options = {
    width: width(),
    height: HEIGHT,
    padding: [10, 22, 0, 0],
    cursor: { drag: { x: false, y: false, setScale: false }, points: { size: 7 } },
    legend: { show: true, live: true },
    scales: { x: { time: true }, y: { range: fromZero } },
    axes: [axis(undefined, 44), axis((u, splits) => splits.map(yValues))],
    series: [{ value: (u, v) => (v === null || v === undefined ? '—' : new Date(v * 1000).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })) }, ...series],
  };
  const empty = [[], ...series.map(() => [])];
  const plot = new uPlot(options, empty, container);
  const observer = new ResizeObserver(() => {
    const w = width();
    if (w !== plot.width) plot.setSize({ width: w, height: HEIGHT });
  });
  observer.observe(container);
  return plot;
}

/** Creates the charts in their containers; call `update(points, currency)` with the filled buckets. */
export function createCharts({ calls, latency, cost }) {
  let currency = 'usd';
  const plots = {
    calls: chart(
      calls,
      [line('Calls', '#4f46e5', 'rgba(79, 70, 229, 0.10)', formatCompact), line('Errors', '#e11d48', 'rgba(225, 29, 72, 0.08)', formatCompact)],
      (v) => (Number.isInteger(v) ? formatCompact(v) : ''),
    ),
    latency: chart(latency, [line('p50', '#0891b2', undefined, formatLatency), line('p99', '#d97706', undefined, formatLatency)], (v) => formatLatency(v)),
    cost: chart(
      cost,
      [line('Cost', '#059669', 'rgba(5, 150, 105, 0.10)', (v) => formatMoneyAxis(v, currency))],
      (v) => formatMoneyAxis(v, currency),
    ),
  };
  return {
    /** `points`: [{t (seconds), calls, errors, p50, p99, cost (number)}], oldest first. */
    update(points, newCurrency) {
      currency = newCurrency || currency;
      const t = points.map((p) => p.t);
      plots.calls.setData([t, points.map((p) => p.calls), points.map((p) => p.errors)]);
      plots.latency.setData([t, points.map((p) => p.p50), points.map((p) => p.p99)]);
      plots.cost.setData([t, points.map((p) => p.cost)]);
    },
  };
}
