/**
 * What the usage stage costs a record on its own, without HTTP or the rest of the pipeline: the stage and its
 * recorder on a fresh embedded store, fed `ai.generate` calls at a steady rate spread over the bench's keys
 * (each with its own entity, as the http section's are), against the same loop feeding the stage nothing, in
 * alternating rounds. Per record: the process's CPU (every thread: the usage file's writer and the collector's
 * helpers too) and the main thread's, each less the loop's. In the http section the stage's cost is the
 * difference of two rows of about 100 µs a call, each moving by several µs from round to round; measured alone,
 * a change of a few microseconds to how calls are recorded shows.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AfterAnswer, AnsweredCall, Reply } from '../src/core/answer.js';
import { usageStage as makeUsageStage } from '../src/faces/usage/record-call.js';
import { UsageRecorder } from '../src/faces/usage/recorder.js';
import { openShippedStore, shippedCatalogue } from '../src/server/shipped.js';
import type { KeyRecord } from '../src/store/keys.js';
import { newId } from '../src/store/secrets.js';
import { mainThreadCpuSeconds } from './http.js';
import { BENCH_KEYS } from './keys.js';
import { writeResults } from './results-file.js';
import { median } from './rounds.js';

/** Calls a second: about what the http section's `ai.generate` row answers on two cores. */
const RATE = 12_000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** The units the test model reports for the pipeline call. */
const UNITS = { inputTokens: 7, outputTokens: 10 };
const REPLY: Reply = { status: 200, headers: {}, body: {} };

/** CPU µs of every thread of the process, and of its main thread alone. */
type Cpu = { total: number; mainThread: number };

export type UsageStageResult = {
  settings: Record<string, unknown>;
  /** Medians over the rounds, in µs a record; NaN for the main thread where there is no /proc. */
  microsPerRecord: Cpu;
  rounds: Cpu[];
};

/** CPU µs used so far by every thread of this process and by its main thread. */
function cpuNow(): Cpu {
  const { user, system } = process.cpuUsage();
  return { total: user + system, mainThread: mainThreadCpuSeconds(process.pid) * 1e6 };
}

/** CPU µs a record of every thread and of the main thread, over `records` made since `since` (cpuNow). */
function cpuSince(since: Cpu, records: number): Cpu {
  const now = cpuNow();
  return { total: (now.total - since.total) / records, mainThread: (now.mainThread - since.mainThread) / records };
}

/** Runs the measurement and writes it to bench/results/usage-stage.json. */
export async function usageStage(): Promise<void> {
  writeResults('usage-stage', await measure());
}

async function measure(): Promise<UsageStageResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dispatch-bench-usage-stage-'));
  const db = await openShippedStore({ dataDir });
  try {
    const catalogue = shippedCatalogue();
    const action = catalogue.faces.get('ai')!.actions.get('generate')!;
    const recorder = new UsageRecorder(db, { flushMs: 1000 });
    const stage = makeUsageStage(recorder, { currency: catalogue.platform.currency, faces: catalogue.faces });
    const keys = Array.from({ length: BENCH_KEYS }, () => ({ id: newId('key') }) as KeyRecord);
    let made = 0;
    const call = (): AnsweredCall => {
      const i = made++ % BENCH_KEYS;
      return { requestId: newId('req'), startedAt: performance.now() - 3, envelope: { face: 'ai' }, key: keys[i]!, mode: 'test', entityId: `bench${i}`, action, units: UNITS };
    };
    /**
     * Makes RATE calls a second for `seconds`, handing each to `after` if given: every 2 ms the calls due by
     * then, with the event loop free between, as a busy server's answers come. Returns how many it made.
     */
    const feed = async (seconds: number, after?: AfterAnswer) => {
      const start = performance.now();
      let due = 0;
      while (performance.now() - start < seconds * 1000) {
        await new Promise((resolve) => setTimeout(resolve, 2));
        for (const until = Math.floor(((performance.now() - start) * RATE) / 1000); due < until; due++) {
          // Made either way, so that the loop's share, taken off the stage's, includes making the call.
          const answered = call();
          after?.(answered, REPLY);
        }
      }
      return due;
    };
    // Warm: the stage, its statements prepared, the store's pages.
    await feed(2, stage);
    await recorder.flush();
    const rounds: Cpu[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      let since = cpuNow();
      const loop = cpuSince(since, await feed(SECONDS));
      since = cpuNow();
      const records = await feed(SECONDS, stage);
      // The round's records written within the round, so that their CPU is counted with them.
      await recorder.flush();
      const recorded = cpuSince(since, records);
      rounds.push({ total: recorded.total - loop.total, mainThread: recorded.mainThread - loop.mainThread });
    }
    await recorder.close();
    const microsPerRecord = { total: median(rounds.map((r) => r.total)), mainThread: median(rounds.map((r) => r.mainThread)) };
    console.log(`\nThe usage stage alone: ${RATE} ai.generate calls a second over ${BENCH_KEYS} keys, embedded; median of ${ROUNDS} alternating rounds of ${SECONDS} s, less the loop that makes the calls`);
    console.table({ 'µs a record': { 'every thread': microsPerRecord.total.toFixed(1), 'main thread': microsPerRecord.mainThread.toFixed(1) } });
    return { settings: { rate: RATE, seconds: SECONDS, rounds: ROUNDS, keys: BENCH_KEYS, flushMs: 1000 }, microsPerRecord, rounds };
  } finally {
    await db.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
