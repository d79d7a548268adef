/**
 * `dispatch listen --forward-to <url> [--events <patterns>]`: forwards a running server's events to a local
 * receiver while developing it. It follows the server's event log as a client with a key (event-follower.ts)
 * and posts each event itself, with the body and the signature headers of a real delivery
 * (docs/contract.md § Webhooks), signed with a secret kept across runs (listen-secret.ts): the server sends
 * nothing, so a receiver on a private address needs no exception on the server.
 */
import type { Command } from 'commander';
import { connectionOptions, usageError, withClient, type Connection } from './connection.js';
import { WEBHOOK_TIMEOUT_MS } from '../spec/webhook-delivery.js';

/** How long an idle listener waits between reads of the event log. */
const POLL_MS = 1000;

interface ListenOptions extends Connection {
  forwardTo: string;
  events: string;
  timeout: string;
}

export function registerListen(program: Command): void {
  connectionOptions(
    program
      .command('listen')
      .description("Forward a running server's events to a local URL as signed webhook deliveries, until interrupted.")
      .requiredOption('--forward-to <url>', 'where to POST each event (http or https, any address)')
      .option('--events <patterns>', "comma-separated event patterns: exact types, '<face>.*' or '*'", '*')
      .option('--timeout <ms>', 'how long the receiver has to answer each event', String(WEBHOOK_TIMEOUT_MS)),
    'an API key with events:read',
  ).action(async (o: ListenOptions) => {
    const [{ urlProblem }, { listenSecret }] = await Promise.all([import('../core/webhook-urls.js'), import('./listen-secret.js')]);
    let target: URL;
    try {
      target = new URL(o.forwardTo);
    } catch {
      return usageError(`--forward-to ${JSON.stringify(o.forwardTo)} is not a URL.`);
    }
    // The rules every webhook URL follows, but for the address: the receiver is on this machine's side.
    const problem = urlProblem(target, 'test', true);
    if (problem) return usageError(`--forward-to: ${problem}.`);
    const timeoutMs = Number(o.timeout);
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1) return usageError('--timeout must be a whole number of milliseconds, at least 1.');
    const patterns = o.events.split(',').map((p) => p.trim()).filter(Boolean);
    if (patterns.length === 0) return usageError("--events needs at least one pattern (an exact type, '<face>.*' or '*').");
    let secret: string;
    let kept: string;
    try {
      ({ secret, path: kept } = listenSecret());
    } catch (error) {
      console.error((error as Error).message);
      process.exitCode = 1;
      return;
    }
    await withClient(o, async (client, key) => {
      const { forwardEvents } = await import('./forward-events.js');
      await forwardEvents(client, { target: target.href, patterns, secret, kept, timeoutMs, pollMs: POLL_MS, mode: key.startsWith('sk_live_') ? 'live' : 'test', entity: o.entity, server: o.url });
    });
  });
}
