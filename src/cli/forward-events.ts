/**
 * The loop of `dispatch listen`: follows the event log and posts each new event to the receiver, one at a time
 * and oldest first, as a webhook delivery is posted (the body, the signature headers of message.ts, post.ts's
 * POST with its time limit), and says one line per event: when it happened, its type and id, and what the
 * receiver answered. A receiver that fails or does not answer is reported and the next event still goes. The
 * first SIGINT or SIGTERM stops after the event in flight; a second ends the process at once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { DispatchConnectionError, DispatchError, RateLimitError, type DispatchClient, type EventsEvent } from '../../generated/client/index.js';
import { postWebhook } from '../core/webhook-post.js';
import { deliveryHeaders } from '../core/webhook-signing.js';
import type { Mode } from '../store/schema.js';
import { EventFollower } from './event-follower.js';

/** The longest wait between reads of an idle log: a listener left running spends few calls of its key. */
const MAX_IDLE_POLL_MS = 5_000;

export interface ForwardSettings {
  /** The receiver's URL. */
  target: string;
  /** The event patterns (`*`, `<face>.*`, exact types). */
  patterns: string[];
  /** The signing secret, and the file it is kept in. */
  secret: string;
  kept: string;
  /** How long the receiver has to answer. */
  timeoutMs: number;
  /** How long to wait between reads of the log. */
  pollMs: number;
  /** The key's mode, which the events are of. */
  mode: Mode;
  entity: string;
  server: string;
}

export async function forwardEvents(client: DispatchClient, s: ForwardSettings): Promise<void> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const follower = new EventFollower(client.events, s.patterns);
  try {
    await follower.start(stop.signal);
  } catch (error) {
    if (stop.signal.aborted) return;
    if (error instanceof DispatchError && error.param?.startsWith('/payload/types')) {
      // A pattern the server refused: said as the option and the pattern it came from, with the server's reason.
      const pattern = s.patterns[Number(error.param.split('/')[3])];
      const which = pattern === undefined ? '' : ` ${JSON.stringify(pattern)}`;
      const reason = error.message.replace(/^[^:]*:\s*/, '').replace(/\.$/, '');
      console.error(`--events${which}: ${reason}; a pattern is an event type of the server, '<face>.*' or '*'.`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
  console.log(`Forwarding the ${s.mode}-mode events of entity ${s.entity} at ${s.server} (${s.patterns.join(', ')}) to ${s.target}.`);
  console.log(`Signing secret: ${s.secret} (kept in ${s.kept}; verify deliveries with it)`);
  console.log('Waiting for events. Ctrl-C stops.');
  let unreachable = false;
  let wait = s.pollMs;
  while (!stop.signal.aborted) {
    let events: EventsEvent[] = [];
    try {
      events = await follower.poll(stop.signal);
      if (unreachable) console.log(`Reached ${s.server} again.`);
      unreachable = false;
      // Idle, read less often (each read is a call, counted by the key's rate limit); at once again on news.
      wait = events.length > 0 ? s.pollMs : Math.min(wait * 2, MAX_IDLE_POLL_MS);
    } catch (error) {
      if (stop.signal.aborted) break;
      // A server restarting or busy (unreachable, 503, 429) is waited for; a refusal (a revoked key, a missing
      // scope) ends the run.
      const passing = error instanceof DispatchConnectionError || (error instanceof DispatchError && (error.status === 429 || error.status === 503));
      if (!passing) throw error;
      const retryAfter = error instanceof RateLimitError ? (error.retryAfterSeconds ?? 0) * 1000 : 0;
      wait = Math.max(retryAfter, Math.min(wait * 2, MAX_IDLE_POLL_MS));
      const why = error instanceof DispatchError ? `${error.status} ${error.code}` : error.message;
      if (!unreachable) console.error(`Cannot read the event log at ${s.server} (${why}); trying again.`);
      unreachable = true;
    }
    for (const event of events) {
      if (stop.signal.aborted) break;
      console.log(await forward(event, s));
    }
    await sleep(wait, undefined, { signal: stop.signal }).catch(() => undefined);
  }
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  console.log('Stopped.');
}

/** Posts one event as a delivery would and says how it went, in one line. */
async function forward(event: EventsEvent, s: ForwardSettings): Promise<string> {
  const body = JSON.stringify(event);
  const headers = deliveryHeaders([s.secret], event.id, new Date(), body);
  const outcome = await postWebhook(s.target, headers, body, { mode: s.mode, timeoutMs: s.timeoutMs, allowPrivateUrls: true });
  const answer = outcome.status !== undefined ? String(outcome.status) : `failed: ${outcome.error}`;
  return `${event.timestamp}  ${event.type}  ${event.id}  -> ${answer}  (${outcome.durationMs} ms)`;
}
