/**
 * Late usage, as a property (fast-check): whatever order metered usage arrives in relative to the periods
 * closing and their invoices being finalized, every period is billed in the end exactly what rating its whole
 * quantity gives (the margin lines telescope), its billed quantities add up to what was used, and no
 * finalized invoice changes afterwards.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PeriodCloser } from '../../src/faces/billing/period-closer.js';
import { rate, type GraduatedPrice } from '../../src/faces/billing/rating.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { usageTotals } from '../../src/faces/usage/totals.js';

const DAY = 86_400_000;
const MINUTE = 60_000;
/** Ended periods before the current one. */
const PERIODS = 4;
const price: GraduatedPrice = {
  type: 'graduated',
  currency: 'usd',
  tiers: [
    { upTo: 1000, unitAmount: '0.5' },
    { upTo: 5000, unitAmount: '0.35', flatAmount: 100 },
    { upTo: null, unitAmount: '0.125' },
  ],
};

let server: TestServer;
let closer: PeriodCloser;
beforeAll(async () => {
  server = await startServer({ billing: { closer: false } });
  closer = new PeriodCloser(server.db, { graceMs: 0, intervalMs: 60_000, apiVersion: () => '2026-09-01', usage: () => usageTotals });
});
afterAll(() => server?.close());

type Step = { kind: 'use'; period: number; value: number } | { kind: 'close'; through: number };
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('use' as const), period: fc.integer({ min: 0, max: PERIODS }), value: fc.integer({ min: 1, max: 4000 }) }),
  fc.record({ kind: fc.constant('close' as const), through: fc.integer({ min: 1, max: PERIODS }) }),
);

let run = 0;
it('bills every period what its whole usage rates, late usage included', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { maxLength: 12 }), async (steps) => {
      const headers = { 'x-entity-id': `late-${run++}` };
      const call = async (face: string, action: string, payload: unknown) => {
        const reply = await server.post({ face, action, payload }, { headers });
        if (reply.status !== 200) throw new Error(`${face}.${action}: ${JSON.stringify(reply.body)}`);
        return reply.body.data;
      };
      const customer = (await call('payments', 'createCustomer', {})).id;
      const { id: priceId } = await call('billing', 'createPrice', { ...price, usage: { source: 'meter', meterType: 'tokens' } });
      const anchor = Date.now() - PERIODS * DAY - 10 * MINUTE;
      const sub = await call('billing', 'subscribe', { customer, prices: [priceId], interval: 'day', backdateStartDate: new Date(anchor).toISOString() });
      const start = Date.parse(sub.startDate);
      const used = Array<number>(PERIODS + 1).fill(0);
      const frozen = new Map<string, unknown>();
      for (const [i, s] of steps.entries()) {
        if (s.kind === 'use') {
          // Within the first minutes of the period, so that the current one has begun by then too.
          const time = new Date(start + s.period * DAY + (1 + (i % 5)) * MINUTE).toISOString();
          await call('usage', 'ingest', { events: [{ id: `e${i}`, type: 'tokens', value: s.value, time }] });
          used[s.period]! += s.value;
        } else {
          // The closer as it would have run just after the end of period `through - 1`.
          await closer.pass(start + s.through * DAY + MINUTE);
        }
        for (const invoice of (await call('billing', 'listInvoices', { subscription: sub.id, limit: 100 })).items) {
          if (invoice.status === 'draft') continue;
          const { status: _status, paidAt: _paidAt, ...content } = invoice;
          if (frozen.has(invoice.id)) expect(content).toEqual(frozen.get(invoice.id));
          else frozen.set(invoice.id, content);
        }
      }
      await closer.pass();
      const last = (await call('billing', 'cancelSubscription', { id: sub.id })).latestInvoice;
      await call('billing', 'finalizeInvoice', { id: last });

      const invoices = (await call('billing', 'listInvoices', { subscription: sub.id, limit: 100 })).items;
      expect(invoices.map((i: any) => i.status).filter((s: string) => s === 'draft')).toEqual([]);
      const lines = invoices.flatMap((i: any) => i.lines);
      for (let k = 0; k <= PERIODS; k++) {
        const from = new Date(start + k * DAY).toISOString();
        const of = lines.filter((l: any) => l.usage.from === from);
        expect(of.reduce((sum: number, l: any) => sum + Number(l.quantity), 0)).toBe(used[k]);
        expect(of.reduce((sum: number, l: any) => sum + l.amount, 0)).toBe(rate(price, used[k]!).amount);
      }
    }),
    { numRuns: 25 },
  );
}, 120_000);
