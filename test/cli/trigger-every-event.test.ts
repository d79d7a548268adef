/**
 * `dispatch trigger` makes every event type of the shipped catalogue happen: against one real server in test
 * mode, each event is triggered by the compiled program (its fixture from the served document's `x-trigger`,
 * or an emitting action's example), and the event it prints is in the entity's event log with that type,
 * caused by one of the calls it printed. Its refusal lists exactly the events it can trigger: all of them. A
 * fixture stops at the first step that fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../generated/client/index.js';
import { shippedCatalogue } from '../../src/server/shipped.js';
import { DISPATCH, runProgram } from '../helpers/process.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

const ENTITY = 'trigger-all';
const shipped = [...shippedCatalogue().eventTypes.keys()].sort();

const dispatch = (args: string[], key = server.adminKey) =>
  runProgram(process.execPath, [DISPATCH, ...args], { env: { ...process.env, DISPATCH_URL: server.url, DISPATCH_API_KEY: key, DISPATCH_ENTITY: ENTITY } });

describe('dispatch trigger, for every event type', () => {
  it('lists every shipped event type as one it can trigger', async () => {
    const refused = await dispatch(['trigger', 'no.such.event']);
    expect(refused.status).toBe(2);
    const listed = /the events it can trigger: (.*)\.$/.exec(refused.stderr.trim())?.[1]?.split(', ');
    expect(listed).toEqual(shipped);
  });

  it('makes each one happen, as the event log shows', async () => {
    const client = createClient({ baseUrl: server.url, apiKey: server.adminKey, entityId: ENTITY });
    const outcomes: Record<string, string> = {};
    for (const type of shipped) {
      const run = await dispatch(['trigger', type]);
      const lines = run.stdout.trim().split('\n');
      const printed = new RegExp(`^${type.replace(/\./g, '\\.')}  (evt_\\w+)$`).exec(lines.at(-1) ?? '')?.[1];
      if (run.status !== 0 || !printed) {
        outcomes[type] = `exit ${run.status}: ${run.stderr.trim() || lines.at(-1)}`;
        continue;
      }
      const event = await client.events.get({ id: printed });
      const requests = lines.slice(0, -1).map((line) => line.split('  ')[1]);
      outcomes[type] = event.type === type && requests.includes(event.request.id) ? 'in the event log' : `logged as ${event.type} by ${event.request.id}`;
    }
    expect(outcomes).toEqual(Object.fromEntries(shipped.map((type) => [type, 'in the event log'])));
  }, 240_000);

  it('stops at the step that fails, saying which in one line', async () => {
    const { secret } = await server.key({ name: 'payments only', scopes: ['payments:customers', 'events:read'] });
    const run = await dispatch(['trigger', 'billing.invoice.paid'], secret);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/^payments\.createCustomer  req_\w+\n$/);
    expect(run.stderr).toMatch(/^Could not trigger billing\.invoice\.paid: step 2 \(billing\.createPrice\) answered 403 insufficient_scope: .*\.\n$/);
  });
});
