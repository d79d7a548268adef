// The usage dashboard (docs/contract.md § Dashboard). It calls POST /do like any client: `usage.summary` for the headline
// numbers, the charts and the breakdowns, `usage.events` to fill the live tail when it (re)connects, and
// `usage.live` for the live tail itself. The key lives in this tab's sessionStorage only.
//
// What it refreshes and when: a record arriving on the live tail asks for the numbers and charts again
// (at most once a second) and for the breakdowns (at most every 5 s); without traffic they refresh every
// 15 s and 60 s. When the key's rate limit runs low, or the server refuses with 429, it slows down.
//
// The page's own calls (usage.*) are recorded like any other; they are left out of the numbers and the
// tail unless "Include usage.* calls" is ticked, by naming the other faces in `filter.face`.
//
// Everything that comes from the server is written with textContent, never parsed as HTML.
//
// This file only wires the parts together: it starts a session for a key, answers the page's controls and
// boots. The parts: connect.js (the key form, what the tab remembers), view.js (range, filter, tab),
// session.js (one key's session and its timers), reads.js (reading usage: pacing, failures), numbers.js
// (headline numbers and charts), breakdowns.js (the breakdown table), live.js (the live tail).
import { BREAKDOWN_MIN_MS, BREAKDOWN_PERIOD_MS, BREAKDOWN_SLOW_MS, refreshBreakdown, refreshOverview, renderBreakdown } from './breakdowns.js';
import { onConnect, savedAuth, showConnect } from './connect.js';
import { $, setText } from './dom.js';
import { followLive, hideLiveAlert, renderTail } from './live.js';
import { SERIES_MIN_MS, SERIES_PERIOD_MS, SERIES_SLOW_MS, refreshSeries } from './numbers.js';
import { readFailed, refresher } from './reads.js';
import { currentSession, openSession, repeat, signOut } from './session.js';
import { RANGES, currentRange, renderControls, setIncludeUsage, setRange, view } from './view.js';

// ---------------------------------------------------------------------------------------------------
// Starting

function start(auth) {
  const s = openSession(auth);
  s.series = refresher(s, () => refreshSeries(s), () => (s.slow ? SERIES_SLOW_MS : SERIES_MIN_MS));
  s.overview = refresher(s, () => refreshOverview(s), () => (s.slow ? BREAKDOWN_SLOW_MS : BREAKDOWN_MIN_MS));
  showDashboard(auth);
  s.overview.request(true);
  repeat(s, SERIES_PERIOD_MS, () => document.hidden || s.series.request());
  repeat(s, BREAKDOWN_PERIOD_MS, () => document.hidden || s.overview.request());
  void followLive(s);
}

function exampleCall(entity) {
  const body = JSON.stringify({ face: 'ai', action: 'generate', payload: { model: 'gpt-4o-mini', prompt: 'Say hello' } });
  return [
    `curl -s ${new URL('do', document.baseURI).href} \\`,
    `  -H "Authorization: Bearer $DISPATCH_API_KEY" \\`,
    `  -H 'X-Entity-ID: ${entity}' -H 'Content-Type: application/json' \\`,
    `  -d '${body}'`,
  ].join('\n');
}

function resetView() {
  for (const id of ['stat-calls', 'stat-error-rate', 'stat-p50', 'stat-p99', 'stat-cost']) setText(id, '—');
  for (const id of ['stat-calls-sub', 'stat-errors', 'stat-cost-sub', 'updated']) setText(id, '');
  $('tail-body').replaceChildren();
  $('tail-empty').hidden = false;
  $('breakdown-body').replaceChildren();
  $('breakdown-empty').hidden = true;
  $('banner').hidden = true;
  hideLiveAlert();
  $('empty').hidden = true;
}

function showDashboard(auth) {
  resetView();
  $('connect').hidden = true;
  $('dashboard').hidden = false;
  $('session').hidden = false;
  setText('session-entity', auth.entity);
  setText('empty-example', exampleCall(auth.entity));
  renderControls();
}

// ---------------------------------------------------------------------------------------------------
// Controls

onConnect(start);

$('change-key').addEventListener('click', () => signOut(''));

$('range').addEventListener('click', (event) => {
  const button = event.target.closest('button[data-range]');
  if (!button || !RANGES[button.dataset.range] || button.dataset.range === view.range) return;
  setRange(button.dataset.range);
  renderControls();
  const session = currentSession();
  if (session) {
    renderBreakdown(session);
    session.series.request(true);
    session.overview.request(true);
  }
});

$('include-usage').addEventListener('change', (event) => {
  setIncludeUsage(event.target.checked);
  const session = currentSession();
  if (session) {
    renderTail(session);
    renderBreakdown(session);
    session.series.request(true);
    session.overview.request(true);
  }
});

$('breakdown-tabs').addEventListener('click', (event) => {
  const tab = event.target.closest('button[data-by]');
  if (!tab || tab.dataset.by === view.breakdownBy) return;
  view.breakdownBy = tab.dataset.by;
  const s = currentSession();
  if (!s) return renderControls();
  renderBreakdown(s);
  if (view.breakdownBy === 'face') s.overview.request(true);
  else refreshBreakdown(s, view.breakdownBy, currentRange(), view.generation).catch((error) => readFailed(s, error));
});

$('refresh').addEventListener('click', () => {
  const session = currentSession();
  if (!session) return;
  session.readBlocked = false;
  session.series.request(true);
  session.overview.request(true);
});

document.addEventListener('visibilitychange', () => {
  const session = currentSession();
  if (!document.hidden && session) {
    session.series.request();
    session.overview.request();
  }
});

// ---------------------------------------------------------------------------------------------------
// Boot

const saved = savedAuth();
if (saved) start(saved);
else showConnect();
