/**
 * The usage record of a call keeps the units the call had reported when it was answered: a handler still
 * running after its caller went away (a 499) may report more, which must reach neither the record nor the
 * rollups written up to a flush window later.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { usageStage } from '../../src/faces/usage/record-call.js';
import { UsageRecorder } from '../../src/faces/usage/recorder.js';
import { openShippedStore } from '../../src/server/shipped.js';
import type { KeyRecord } from '../../src/store/keys.js';
import type { Db } from '../../src/store/schema.js';

let dataDir: string;
let db: Db;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'dispatch-usage-'));
  db = await openShippedStore({ dataDir });
});
afterAll(async () => {
  await db.destroy();
  rmSync(dataDir, { recursive: true, force: true });
});

it('records the units reported by the time of the answer, not those reported after it', async () => {
  const recorder = new UsageRecorder(db, { flushMs: 60_000 });
  const stage = usageStage(recorder, { currency: 'usd', faces: new Map([['ai', {}]]) });
  const units: Record<string, number> = { tokens: 10 };
  const key = { id: 'key_x' } as KeyRecord;
  stage(
    { requestId: 'req_1', startedAt: performance.now(), envelope: { face: 'ai' }, key, mode: 'test', entityId: 'acme', units },
    { status: 499, headers: {}, body: { error: { code: 'client_closed_request' } } },
  );
  // The handler goes on after its caller left, and reports more.
  units.tokens = 25;
  await recorder.close();
  const record = await db.selectFrom('usage_records').select('units').executeTakeFirstOrThrow();
  expect(JSON.parse(record.units)).toEqual({ tokens: 10 });
  const rollups = await db.selectFrom('usage_unit_rollups').select(['unit', 'amount']).execute();
  expect(rollups.map((r) => [r.unit, String(r.amount)])).toEqual([['tokens', '10']]);
});
