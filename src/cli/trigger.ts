/**
 * `dispatch trigger <event>`: makes an event happen on a running server by running, in test mode and through
 * the API, the event's fixture (the calls its face file gives it), or else an action that emits it with the
 * payload of its example and whatever the example needs made first (trigger-plan.ts, trigger-run.ts). Prints
 * each call (action and request id), then the event's id. Nothing is inserted: the event is the actions' own,
 * delivered to the entity's webhook endpoints and forwarded by `dispatch listen` like any other.
 */
import type { Command } from 'commander';
import { connectionOptions, usageError, withClient, type Connection } from './connection.js';

/** How long the server has to hand over its document: one that never answers must not hang the command. */
const DOCUMENT_TIMEOUT_MS = 30_000;

export function registerTrigger(program: Command): void {
  connectionOptions(
    program
      .command('trigger')
      .argument('<event>', 'the event type, e.g. auth.signup.succeeded')
      .description("Make an event happen on a running server by running its fixture's test-mode calls, or an action that emits it."),
    'a test-mode API key with the scopes of the actions run, and events:read',
  ).action(async (event: string, o: Connection) => {
    if (o.key?.startsWith('sk_live_')) return usageError('dispatch trigger runs actions in test mode only: give it a test key (sk_test_…).');
    const base = o.url.replace(/\/+$/, '');
    let document: unknown;
    try {
      const response = await fetch(`${base}/openapi.json`, { signal: AbortSignal.timeout(DOCUMENT_TIMEOUT_MS) });
      if (!response.ok) throw new Error(`GET /openapi.json answered ${response.status}`);
      document = await response.json();
    } catch (error) {
      console.error(`Cannot read the catalogue at ${base}/openapi.json (${(error as Error).message}): is the server running there? Its address is --url or DISPATCH_URL.`);
      process.exitCode = 1;
      return;
    }
    const [{ canTrigger, triggerCatalogue, triggerableEvents }, { Trigger, TriggerFailure }] = await Promise.all([import('./trigger-plan.js'), import('./trigger-run.js')]);
    const catalogue = triggerCatalogue(document as Parameters<typeof triggerCatalogue>[0]);
    if (!canTrigger(catalogue, event)) {
      const known = catalogue.events.includes(event) ? `${event} has no fixture and no action's example can make it happen` : `${event} is not an event type of the server at ${base}`;
      return usageError(`${known}; the events it can trigger: ${triggerableEvents(catalogue).join(', ')}.`);
    }
    await withClient(o, async (client) => {
      try {
        const made = await new Trigger(client, catalogue, (line) => console.log(line)).run(event);
        console.log(`${made.type}  ${made.id}`);
      } catch (error) {
        if (!(error instanceof TriggerFailure)) throw error;
        console.error(error.message);
        process.exitCode = 1;
      }
    });
  });
}
