// How the page reads usage: one `usage.summary` call, the `filter.face` that leaves out the page's own
// calls, the refresher that paces each kind of read (debounced, slower when the key's rate limit runs low),
// and what a refused or failed read shows in the banner and when it is tried again. In one place so that the
// numbers, the breakdowns and the live tail's backfill all ask, slow down and fail the same way.
import { ApiCallError, NetworkError, call } from './api.js';
import { $, setText } from './dom.js';
import { backoff, later, seconds, signOut } from './session.js';
import { OWN_FACE, view } from './view.js';

/** `filter.face` takes at most this many names. */
const MAX_FILTER_FACES = 50;
const DEBOUNCE_MS = 150;
/** Below this many calls left in the key's tightest rate-limit window, the page refreshes less often. */
const LOW_REMAINING = 15;

/**
 * Runs `run` when asked, after a short debounce and never more often than `minInterval()`; asked again
 * while it runs, it runs once more afterwards.
 */
export function refresher(s, run, minInterval) {
  let timer;
  let running = false;
  let again;
  let last = 0;
  const fire = async () => {
    timer = undefined;
    if (!s.active) return;
    running = true;
    last = Date.now();
    try {
      await run();
    } catch (error) {
      readFailed(s, error);
    } finally {
      running = false;
      if (again && s.active) {
        const now = again === 'now';
        again = undefined;
        request(now);
      }
    }
  };
  const request = (now = false) => {
    if (!s.active || s.readBlocked) return;
    if (running) {
      again = now || again === 'now' ? 'now' : true;
      return;
    }
    if (timer !== undefined) {
      if (!now) return;
      clearTimeout(timer);
    }
    timer = setTimeout(fire, now ? 0 : Math.max(DEBOUNCE_MS, last + minInterval() - Date.now()));
  };
  return { request, cancel: () => clearTimeout(timer) };
}

export async function summary(s, payload) {
  const answer = await call(s.auth, 'usage', 'summary', payload, { signal: s.abort.signal });
  noteRemaining(s, answer.remaining);
  if (typeof answer.data?.currency === 'string') s.currency = answer.data.currency;
  readSucceeded(s);
  return answer.data;
}

export function noteRemaining(s, remaining) {
  if (remaining !== undefined) s.slow = remaining <= LOW_REMAINING;
}

/** `filter.face` for the current view: every face seen but the page's own; `none` when there is no other. */
export function faceFilter(s) {
  if (view.includeUsage) return {};
  const faces = [...s.knownFaces].filter((f) => f !== OWN_FACE);
  if (faces.length === 0) return { none: true };
  // Names the filter cannot take (too many, too long): count everything rather than guess.
  if (faces.length > MAX_FILTER_FACES || faces.some((f) => typeof f !== 'string' || f.length < 1 || f.length > 64)) return {};
  return { face: faces.sort() };
}

export const filterOf = (faces) => ({ entity: '*', ...(faces.face ? { face: faces.face } : {}) });

function readSucceeded(s) {
  if (s.readFailures > 0 || s.bannerFrom === 'read') {
    s.readFailures = 0;
    hideBanner(s, 'read');
  }
}

/** What a refused or failed read shows, and when it is tried again. */
export function readFailed(s, error) {
  if (!s.active || error?.name === 'AbortError') return;
  if (error instanceof ApiCallError) {
    if (error.status === 401) return signOut(`${error.message} Paste another key.`);
    if (error.code === 'entity_forbidden' || error.code === 'entity_missing') return signOut(error.message, { keepKey: true, field: 'entity' });
    if (error.code === 'insufficient_scope') {
      s.readBlocked = true;
      const scope = error.details?.requiredScope ?? 'usage:read';
      return showBanner(s, 'read', 'error', `This key cannot read usage: it lacks the ${scope} scope. Use a key that holds usage:read (and usage:live for the live tail).`, {
        label: 'Use another key',
        run: () => signOut('', { keepKey: false }),
      });
    }
    if (error.status === 429) {
      s.slow = true;
      const wait = error.retryAfterMs ?? backoff(++s.readFailures);
      showBanner(s, 'read', 'warn', `This key's rate limit is reached; the dashboard refreshes less often and tries again in ${seconds(wait)}.`);
      return later(s, wait, () => s.overview.request(true));
    }
    const wait = error.retryAfterMs ?? backoff(++s.readFailures);
    showBanner(s, 'read', 'error', `The usage could not be read: ${error.message} (${error.status} ${error.code}). Trying again in ${seconds(wait)}.`);
    return later(s, wait, () => s.overview.request(true));
  }
  if (error instanceof NetworkError) {
    const wait = backoff(++s.readFailures);
    showBanner(s, 'read', 'error', `Cannot reach the server at ${location.host}: is it running? Trying again in ${seconds(wait)}.`);
    return later(s, wait, () => s.overview.request(true));
  }
  const wait = backoff(++s.readFailures);
  showBanner(s, 'read', 'error', `Something went wrong while reading usage (${error?.message ?? error}). Trying again in ${seconds(wait)}.`);
  later(s, wait, () => s.overview.request(true));
}

function showBanner(s, from, kind, text, action) {
  s.bannerFrom = from;
  const banner = $('banner');
  banner.dataset.kind = kind;
  setText('banner-text', text);
  const button = $('banner-action');
  button.hidden = !action;
  if (action) {
    button.textContent = action.label;
    button.onclick = action.run;
  }
  banner.hidden = false;
}

function hideBanner(s, from) {
  if (s.bannerFrom !== from) return;
  s.bannerFrom = undefined;
  $('banner').hidden = true;
}
