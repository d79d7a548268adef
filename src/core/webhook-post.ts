/**
 * One delivery attempt over HTTP(S): POST the body with the signature headers, wait at most `timeoutMs`
 * for the status line and the body, and report what happened. Connections go through the guarded lookup of
 * webhook-urls.ts, so each one is checked against the address rules when it is made.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Mode } from '../store/schema.js';
import { guardedLookup, urlProblem } from './webhook-urls.js';

export interface AttemptOutcome {
  /** The receiver's status, when it answered. */
  status?: number;
  /** Why no usable answer came. */
  error?: string;
  /** The receiver's `Retry-After`, in ms from now. */
  retryAfterMs?: number;
  durationMs: number;
}

/** A receiver's body is read (so the connection can be reused) but never kept past this. */
const MAX_BODY_BYTES = 64 * 1024;

export async function postWebhook(
  target: string,
  headers: Record<string, string>,
  body: string,
  options: { mode: Mode; timeoutMs: number; allowPrivateUrls: boolean },
): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return { error: 'the URL is not valid', durationMs: 0 };
  }
  const problem = urlProblem(url, options.mode, options.allowPrivateUrls);
  if (problem) return { error: `address not allowed: ${problem}`, durationMs: 0 };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<AttemptOutcome>((resolve) => {
    const req = send(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'UnifiedDispatch-Webhooks/1', ...headers },
      lookup: guardedLookup(options.allowPrivateUrls),
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    req.on('response', (response: IncomingMessage) => {
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > MAX_BODY_BYTES) response.destroy();
      });
      const done = () => resolve({ status: response.statusCode!, ...retryAfter(response.headers['retry-after']), durationMs: elapsed() });
      response.on('end', done);
      response.on('close', done);
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      const reason = error.name === 'AbortError' || error.name === 'TimeoutError' ? `no answer within ${options.timeoutMs} ms` : error.code === 'EADDRNOTALLOWED' ? `address not allowed: ${error.message}` : (error.code ?? error.message);
      resolve({ error: reason, durationMs: elapsed() });
    });
    req.end(body);
  });
}

/** The longest `Retry-After` honoured: a day, the span of the whole live schedule. */
const MAX_RETRY_AFTER_MS = 86_400_000;

/** A `Retry-After` (seconds or an HTTP date) in ms from now, at most a day; nothing when unreadable. */
function retryAfter(value: string | undefined): { retryAfterMs?: number } {
  if (value === undefined) return {};
  const ms = /^\s*\d+\s*$/.test(value) ? Number(value) * 1000 : Date.parse(value) - Date.now();
  // A receiver may answer anything; a huge or malformed value must not stall or break the schedule.
  return Number.isFinite(ms) ? { retryAfterMs: Math.min(Math.max(0, ms), MAX_RETRY_AFTER_MS) } : {};
}
