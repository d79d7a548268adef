// What the page is looking at: the range, whether the page's own usage.* calls are counted, and the open
// breakdown tab; the range and the box are remembered for the tab. Changing the range or the filter bumps
// `generation`, so that every module can drop answers to an older question. Also draws the controls from it.
import { STORAGE, storage } from './connect.js';
import { $, setText } from './dom.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
export const RANGES = {
  '15m': { buckets: 15, bucket: 'minute', label: 'Last 15 minutes, per minute', short: 'last 15 minutes' },
  '1h': { buckets: 60, bucket: 'minute', label: 'Last hour, per minute', short: 'last hour' },
  '6h': { buckets: 360, bucket: 'minute', label: 'Last 6 hours, per minute', short: 'last 6 hours' },
  '24h': { buckets: 24, bucket: 'hour', label: 'Last 24 hours, per hour', short: 'last 24 hours' },
  '7d': { buckets: 168, bucket: 'hour', label: 'Last 7 days, per hour', short: 'last 7 days' },
};
const BUCKET_MS = { minute: MINUTE_MS, hour: HOUR_MS };
/** The face of the page's own calls. */
export const OWN_FACE = 'usage';
/** The breakdown tabs' names. */
export const NAMES = { face: 'Face', entity: 'Entity', key: 'Key' };

export const view = {
  range: RANGES[storage.get(STORAGE.range)] ? storage.get(STORAGE.range) : '1h',
  includeUsage: storage.get(STORAGE.include) === '1',
  breakdownBy: 'face',
  /** Bumped when the range or the filter changes: answers to older questions are dropped. */
  generation: 0,
};

export function setRange(range) {
  view.range = range;
  view.generation += 1;
  storage.set(STORAGE.range, view.range);
}

export function setIncludeUsage(includeUsage) {
  view.includeUsage = includeUsage;
  view.generation += 1;
  storage.set(STORAGE.include, view.includeUsage ? '1' : '0');
}

/** The range asked for now: whole buckets, the current one included. */
export function currentRange() {
  const range = RANGES[view.range];
  const size = BUCKET_MS[range.bucket];
  const now = Date.now();
  const fromMs = Math.floor(now / size) * size - (range.buckets - 1) * size;
  // No `to`: the server's clock says what "now" is, so a browser whose clock is off still sees the latest calls.
  return { ...range, size, fromMs, from: new Date(fromMs).toISOString() };
}

export function renderControls() {
  for (const button of $('range').querySelectorAll('button')) button.setAttribute('aria-pressed', String(button.dataset.range === view.range));
  setText('range-label', RANGES[view.range].label);
  $('include-usage').checked = view.includeUsage;
  for (const tab of $('breakdown-tabs').querySelectorAll('button')) tab.setAttribute('aria-selected', String(tab.dataset.by === view.breakdownBy));
  setText('breakdown-name', NAMES[view.breakdownBy]);
}
