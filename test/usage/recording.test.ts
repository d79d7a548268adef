/**
 * The usage stage over real HTTP, on SQLite and on PostgreSQL: every call after authentication is recorded
 * once (batch requests each, the envelope not; a replay at zero cost; a 401 not at all), with the units its
 * handler reported and a cost computed from the face file; the minute rollups add up to exactly the records;
 * records are written within the flush window without waiting for a stop.
 */
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

const AI_PRICE = { perCall: '0.0005', inputTokens: '0.0000005', outputTokens: '0.000002' };

describe.each([
  { name: 'SQLite', postgres: false },
  { name: 'PostgreSQL', postgres: true },
])('usage records on $name', ({ postgres }) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ postgres, usageFlushMs: 50 });
  });
  afterAll(() => server?.close());

  const records = () => server.db.selectFrom('usage_records').selectAll().where('entity_id', '=', 'acme').orderBy('id').execute();

  it('records every attributable call once, priced from the face file, and the rollups add up exactly', async () => {
    const generate = { face: 'ai', action: 'generate', payload: { model: 'm', prompt: 'Say hello', input: 'to the usage stage' } };
    const answers = [
      await server.post(generate),
      await server.post(generate, { headers: { 'x-idempotency-key': 'usage-1' } }),
      await server.post(generate, { headers: { 'x-idempotency-key': 'usage-1' } }),
      await server.post({ ...generate, payload: { model: 'm' } }),
      await server.post({ face: 'nope', action: 'x', payload: {} }),
      await server.post({ face: 'batch', action: 'run', payload: { mode: 'bestEffort', requests: [generate, { face: 'ai', action: 'nope', payload: {} }] } }),
      await server.post(generate, { headers: { authorization: `Bearer sk_test_${'Z'.repeat(40)}` } }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 400, 404, 200, 401]);
    const limited = (await server.key({ scopes: ['keys:read'] })).secret;
    expect((await server.post(generate, { headers: { authorization: `Bearer ${limited}` } })).status).toBe(403);

    await expect.poll(async () => (await records()).length, { timeout: 3000 }).toBe(8);
    const rows = await records();
    // Ids sort by time, but not within one millisecond (the batch's requests): compare as sets.
    const sorted = (list: unknown[][]) => list.map((t) => JSON.stringify(t)).sort();
    expect(sorted(rows.map((r) => [r.face, r.action, r.status, r.error_code, r.replayed]))).toEqual(
      sorted([
        ['ai', 'generate', 200, null, 0],
        ['ai', 'generate', 200, null, 0],
        ['ai', 'generate', 200, null, 1],
        ['ai', 'generate', 400, 'payload_invalid', 0],
        ['(unknown)', '(unknown)', 404, 'face_not_found', 0],
        ['ai', 'generate', 200, null, 0],
        ['ai', '(unknown)', 404, 'action_not_found', 0],
        ['ai', 'generate', 403, 'insufficient_scope', 0],
      ]),
    );
    // Units are what the handler reported; the answer says the same.
    const first = rows.find((r) => r.request_id === answers[0]!.body.meta.requestId)!;
    expect(JSON.parse(first.units)).toEqual({ inputTokens: answers[0]!.body.data.tokens.input, outputTokens: answers[0]!.body.data.tokens.output });
    // Cost: the face file's prices; refusals and the replay cost nothing; never a float.
    const priced = (units: { inputTokens: number; outputTokens: number }) =>
      new Decimal(AI_PRICE.perCall).plus(new Decimal(AI_PRICE.inputTokens).times(units.inputTokens)).plus(new Decimal(AI_PRICE.outputTokens).times(units.outputTokens)).toFixed();
    for (const r of rows) {
      expect(r.currency).toBe('usd');
      expect(r.cost).toBe(r.status === 200 && !r.replayed ? priced(JSON.parse(r.units)) : '0');
    }
    // The batch's requests share its request id; the envelope has no record of its own.
    const ofBatch = rows.filter((r) => r.request_id === answers[5]!.body.meta.requestId);
    expect(ofBatch.map((r) => r.action).sort()).toEqual(['(unknown)', 'generate']);

    const rollups = await server.db
      .selectFrom('usage_rollups')
      .select((eb) => [eb.fn.sum<number>('calls').as('calls'), eb.fn.sum<number>('errors').as('errors'), eb.fn.sum<number>('replayed').as('replayed')])
      .select((eb) => eb.cast<string>(eb.fn.sum('cost_nanos'), 'text').as('nanos'))
      .where('entity_id', '=', 'acme')
      .executeTakeFirstOrThrow();
    expect(Number(rollups.calls)).toBe(8);
    expect(Number(rollups.errors)).toBe(4);
    expect(Number(rollups.replayed)).toBe(1);
    const total = rows.reduce((sum, r) => sum.plus(r.cost), new Decimal(0));
    expect(new Decimal(rollups.nanos).dividedBy(1e9).toFixed()).toBe(total.toFixed());
    const units = await server.db.selectFrom('usage_unit_rollups').select(['unit', 'amount']).where('entity_id', '=', 'acme').execute();
    const summed = (unit: string) => units.filter((u) => u.unit === unit).reduce((n, u) => n + Number(u.amount), 0);
    expect(summed('outputTokens')).toBe(rows.reduce((n, r) => n + ((JSON.parse(r.units) as Record<string, number>).outputTokens ?? 0), 0));
  });
});
