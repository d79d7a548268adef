// The live tail: `usage.live` streams each call as it is recorded, and the table shows the newest first. A
// stream ends after LIVE_SECONDS and the next opens at once; a failed one is opened again after a back-off,
// with the reason shown. Each (re)connection fills the gap from `usage.events`. A fresh record asks the
// numbers and the breakdowns to refresh, unless it is one of the page's own calls.
import { ApiCallError, NetworkError, StreamInterrupted, call, stream } from './api.js';
import { $, h, setText } from './dom.js';
import { formatClock, formatLatency, formatMoney, formatTime } from './format.js';
import { SERIES_PERIOD_MS } from './numbers.js';
import { faceFilter, filterOf, noteRemaining } from './reads.js';
import { backoff, currentSession, seconds, signOut, sleep } from './session.js';
import { OWN_FACE, view } from './view.js';

const TAIL_ROWS = 100;
const TAIL_KEPT = 400;
/** A live stream runs this long, then ends with a result and is opened again (the call's time-out is 120 s at most). */
const LIVE_SECONDS = 110;
const LIVE_TIMEOUT_MS = 120_000;
/** A stream that lived this long before failing starts the back-off again. */
const LIVE_HEALTHY_MS = 30_000;

export async function followLive(s) {
  let opened = false;
  while (s.active) {
    setLive(s, opened ? 'reconnecting' : 'connecting', opened ? 'Reconnecting…' : 'Connecting…');
    const started = Date.now();
    let failure;
    try {
      const end = await stream(
        s.auth,
        'usage',
        'live',
        { maxSeconds: LIVE_SECONDS, filter: { entity: '*' } },
        { timeout: LIVE_TIMEOUT_MS },
        { signal: s.abort.signal, onEvent: (event) => onLiveEvent(s, event, opened) },
      );
      opened = true;
      if (end.event === 'result') {
        // Its time was up: open the next one at once.
        s.liveFailures = 0;
        continue;
      }
      failure = { message: `The live stream ended: ${end.data?.error?.message ?? 'an error'} (${end.data?.error?.code ?? 'unknown'})`, retryAfterMs: undefined };
    } catch (error) {
      if (!s.active || error?.name === 'AbortError') return;
      if (error instanceof ApiCallError) {
        if (error.status === 401) return signOut(`${error.message} Paste another key.`);
        if (error.code === 'entity_forbidden' || error.code === 'entity_missing') return signOut(error.message, { keepKey: true, field: 'entity' });
        if (error.code === 'insufficient_scope') {
          setLive(s, 'unavailable', 'Not available');
          showLiveAlert('error', `This key cannot follow calls live: it lacks the ${error.details?.requiredScope ?? 'usage:live'} scope. The numbers above still refresh every ${seconds(SERIES_PERIOD_MS)}.`);
          return;
        }
        failure = {
          message: error.status === 429 ? "This key's rate limit is reached" : `The live stream was refused: ${error.message} (${error.status} ${error.code})`,
          retryAfterMs: error.retryAfterMs,
        };
      } else if (error instanceof NetworkError) {
        failure = { message: `Cannot reach the server at ${location.host}`, offline: true };
      } else if (error instanceof StreamInterrupted) {
        failure = { message: 'The live stream was cut' };
      } else {
        failure = { message: `The live stream failed (${error?.message ?? error})` };
      }
    }
    if (Date.now() - started > LIVE_HEALTHY_MS) s.liveFailures = 0;
    s.liveFailures += 1;
    const wait = failure.retryAfterMs ?? backoff(s.liveFailures);
    setLive(s, failure.offline ? 'offline' : 'reconnecting', failure.offline ? 'Offline' : 'Reconnecting');
    showLiveAlert('warn', `${failure.message}. Reconnecting in ${seconds(wait)}${s.liveFailures > 1 ? ` (attempt ${s.liveFailures})` : ''}.`);
    await sleep(wait, s.abort.signal);
  }
}

function onLiveEvent(s, event, reconnected) {
  if (!s.active) return;
  if (event.event === 'start') {
    setLive(s, 'live', 'Live');
    hideLiveAlert();
    s.liveFailures = Math.min(s.liveFailures, 1);
    s.liveSince ??= new Date();
    // A stream ends after LIVE_SECONDS and the next one opens at once: say so rather than look stuck.
    setText('live-status', reconnected ? `Following calls since ${formatClock(s.liveSince)} · stream renewed at ${formatClock(new Date())}` : `Following calls since ${formatClock(s.liveSince)}`);
    // Whatever was answered while no stream was open: the tail from the records, the numbers from the rollups.
    void backfill(s);
    if (reconnected) {
      s.series.request();
      s.overview.request();
    }
  } else if (event.event === 'record') {
    addRecords(s, [event.data], true);
  }
}

/** Fills the tail from `usage.events`: the newest records at first, then those since the last one seen. */
async function backfill(s) {
  try {
    await Promise.race([s.facesReady, sleep(10_000, s.abort.signal)]);
    if (!s.active || s.readBlocked) return;
    const faces = faceFilter(s);
    if (faces.none) return;
    const payload = { limit: 50, filter: filterOf(faces), ...(s.lastSeenAt ? { from: s.lastSeenAt } : {}) };
    const answer = await call(s.auth, 'usage', 'events', payload, { signal: s.abort.signal });
    noteRemaining(s, answer.remaining);
    if (Array.isArray(answer.data?.items)) addRecords(s, answer.data.items, false);
  } catch {
    // The live tail goes on without its history; a failing read shows through the numbers' refresh.
  }
}

const isRecord = (r) => r && typeof r === 'object' && typeof r.id === 'string';

/** Adds records to the tail (newest first); a fresh one (from the stream) also asks for the numbers again. */
function addRecords(s, records, fresh) {
  let changed = false;
  let newFace = false;
  let counts = false;
  for (const record of records) {
    if (!isRecord(record) || s.tailIds.has(record.id)) continue;
    s.tail.push(record);
    s.tailIds.add(record.id);
    if (fresh) record.fresh = true;
    changed = true;
    if (typeof record.at === 'string' && (!s.lastSeenAt || record.at > s.lastSeenAt)) s.lastSeenAt = record.at;
    if (typeof record.face === 'string' && !s.knownFaces.has(record.face)) {
      s.knownFaces.add(record.face);
      newFace = true;
    }
    // The page's own calls never ask for a refresh: each refresh would record another.
    if (fresh && record.face !== OWN_FACE) counts = true;
  }
  if (!changed) return;
  s.tail.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  if (s.tail.length > TAIL_KEPT) {
    for (const dropped of s.tail.splice(TAIL_KEPT)) {
      s.tailIds.delete(dropped.id);
      s.rows.delete(dropped.id);
    }
  }
  renderTail(s);
  // A hidden tab asks for nothing (the key's rate limit is shared); it catches up when shown again.
  if (document.hidden) return;
  if (counts) {
    s.series.request();
    s.overview.request();
  } else if (newFace) s.overview.request();
}

function statusBadge(status) {
  const kind = status >= 500 ? 'badge-bad' : status >= 400 ? 'badge-warn' : 'badge-ok';
  return h('span', { class: `badge ${kind}` }, String(status));
}

function tailRow(record) {
  const status = Number(record.status);
  const call = `${record.face}.${record.action}`;
  const row = h(
    'tr',
    { class: record.fresh ? 'new' : undefined, 'data-id': record.id },
    h('td', { title: String(record.at) }, formatTime(record.at)),
    h(
      'td',
      {},
      statusBadge(status),
      record.errorCode ? h('span', { class: 'code-text' }, String(record.errorCode)) : undefined,
      record.replayed ? h('span', { class: 'tag', title: 'An idempotent replay: it costs nothing.' }, 'replay') : undefined,
    ),
    h('td', { class: 'mono name', title: call }, call),
    h('td', { class: 'mono', title: String(record.entityId) }, String(record.entityId)),
    h('td', { class: 'num' }, formatLatency(Number(record.latencyMs))),
    h('td', { class: 'num' }, formatMoney(record.cost, record.currency)),
    h('td', { class: 'mono id', title: String(record.keyId) }, String(record.keyId)),
    h('td', { class: 'mono id', title: String(record.requestId) }, String(record.requestId)),
  );
  delete record.fresh;
  return row;
}

export function renderTail(s) {
  const visible = s.tail.filter((r) => view.includeUsage || r.face !== OWN_FACE).slice(0, TAIL_ROWS);
  const rows = visible.map((record) => {
    let row = s.rows.get(record.id);
    if (!row) {
      row = tailRow(record);
      s.rows.set(record.id, row);
    }
    return row;
  });
  $('tail-body').replaceChildren(...rows);
  $('tail-empty').hidden = visible.length > 0;
}

function setLive(s, state, text) {
  if (currentSession() !== s) return;
  $('live-pill').dataset.state = state;
  setText('live-pill-text', text);
  if (state !== 'live') setText('live-status', state === 'unavailable' ? 'Live tail off' : text === 'Connecting…' ? 'Connecting…' : 'Not connected');
}

function showLiveAlert(kind, text) {
  const alert = $('live-alert');
  alert.dataset.kind = kind;
  alert.textContent = text;
  alert.hidden = false;
}

export function hideLiveAlert() {
  $('live-alert').hidden = true;
}
