// One session: the dashboard running for one key, from the form to a sign-out. It holds that session's
// state, and the timers it starts, so that stopping it (another key, a refused key) cancels all of them and
// an answer that arrives afterwards changes nothing. Also the waits shared by its reads and its live tail.
import { forgetKey, showConnect } from './connect.js';

/** The dashboard while it runs for one key; undefined while the key form shows. */
let session;

export const currentSession = () => session;

export const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/** 1 s, 2 s, 4 s … up to 30 s, with some jitter so that many tabs do not retry in step. */
export const backoff = (failures) => Math.round(Math.min(30_000, 1000 * 2 ** Math.max(0, failures - 1)) * (0.85 + Math.random() * 0.3));
export const seconds = (ms) => `${Math.max(1, Math.round(ms / 1000))} s`;

/** Stops the running session, if any, and makes a new one current; its refreshers are set by the caller. */
export function openSession(auth) {
  stop();
  let facesReady;
  const s = {
    auth,
    active: true,
    abort: new AbortController(),
    timers: new Set(),
    /** Faces seen in the range or on the live tail: what `filter.face` names (less the page's own). */
    knownFaces: new Set(),
    facesLoaded: false,
    facesReady: new Promise((resolve) => (facesReady = resolve)),
    currency: 'usd',
    tail: [],
    tailIds: new Set(),
    rows: new Map(),
    lastSeenAt: undefined,
    breakdowns: {},
    slow: false,
    readFailures: 0,
    readBlocked: false,
    liveFailures: 0,
  };
  s.markFacesReady = facesReady;
  session = s;
  return s;
}

function stop() {
  const s = session;
  if (!s) return;
  session = undefined;
  s.active = false;
  s.abort.abort();
  for (const timer of s.timers) clearTimeout(timer);
  s.series.cancel();
  s.overview.cancel();
}

export function repeat(s, ms, run) {
  const timer = setInterval(() => s.active && run(), ms);
  s.timers.add(timer);
}

export function later(s, ms, run) {
  const timer = setTimeout(() => {
    s.timers.delete(timer);
    if (s.active) run();
  }, ms);
  s.timers.add(timer);
}

/** Back to the key form, with what went wrong. */
export function signOut(message, { keepKey = false, field = 'key' } = {}) {
  const key = session?.auth.key;
  stop();
  if (!keepKey) forgetKey();
  showConnect(message, { key: keepKey ? key : '', field });
}
