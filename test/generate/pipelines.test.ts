/**
 * The generated checks of each action (generated/server/pipelines/<face>.js): run with a kit that records what
 * it is asked, each action runs exactly the checks its face file calls for, in the pipeline's order, with
 * what the face file fixes written in, and waits for a rate limit that must wait before going on.
 */
import { describe, expect, it } from 'vitest';
import * as ai from '../../generated/server/pipelines/ai.js';
import * as batch from '../../generated/server/pipelines/batch.js';
import * as keys from '../../generated/server/pipelines/keys.js';
import { faces } from '../../generated/server/dispatch.js';
import type { CallState } from '../../src/server/call.js';
import type { Runtime } from '../../src/server/runtime.js';
import { kit, type ActionChecksMaker, type StageKit } from '../../src/server/stages/kit.js';

/** A kit that records each check with its arguments (the call left out); the rate limit answers `limit`. */
function recording(limit: () => void | Promise<void> = () => undefined) {
  const asked: unknown[][] = [];
  const record = (name: string) => (_call: unknown, ...args: unknown[]) => void asked.push([name, ...args]);
  const recordingKit: StageKit = {
    ...kit,
    atomicOnly: record('atomicOnly'),
    scope: record('scope'),
    noStream: record('noStream'),
    streamOnly: record('streamOnly'),
    validate: (_call, validators) => void asked.push(['validate', typeof validators === 'function' ? 'one' : [...validators.keys()]]),
    rateLimit: () => (asked.push(['rateLimit']), limit()),
  };
  return { asked, recordingKit };
}

const run = (maker: ActionChecksMaker, limit?: () => void | Promise<void>) => {
  const { asked, recordingKit } = recording(limit);
  const outcome = maker(recordingKit)({} as CallState, {} as Runtime);
  return { asked, outcome };
};

describe('generated action checks', () => {
  it('a streaming action that is not atomic: no stream check, a validator per version', () => {
    const versions = [...faces.get('ai')!.actions.get('generate')!.versions];
    expect(run(ai.ai_generate as ActionChecksMaker).asked).toEqual([
      ['atomicOnly', 'ai.generate'],
      ['scope', 'ai.generate', 'ai:generate'],
      ['rateLimit'],
      ['validate', versions],
    ]);
  });

  it('an atomic action that never streams: no atomic check, a stream refused, one validator', () => {
    expect(run(keys.keys_list as ActionChecksMaker).asked).toEqual([
      ['scope', 'keys.list', 'keys:read'],
      ['rateLimit'],
      ['noStream', 'keys.list'],
      ['validate', 'one'],
    ]);
  });

  it('a batch takes no rate limit of its own', () => {
    expect(run(batch.batch_run as ActionChecksMaker).asked.map(([name]) => name)).toEqual(['scope', 'noStream', 'validate']);
  });

  it('goes on after a rate limit that waits, and only then', async () => {
    let release!: () => void;
    const waiting = new Promise<void>((resolve) => (release = resolve));
    const { asked, outcome } = run(ai.ai_models as ActionChecksMaker, () => waiting);
    expect(asked.map(([name]) => name)).toEqual(['scope', 'rateLimit']);
    release();
    await outcome;
    expect(asked.map(([name]) => name)).toEqual(['scope', 'rateLimit', 'noStream', 'validate']);
  });

  it('has checks for every action of every face, named as the dispatch table names them', async () => {
    for (const face of faces.values()) {
      for (const action of face.actions.values()) {
        const module = await action.checks.module();
        expect(typeof module[action.checks.name], action.id).toBe('function');
        expect(action.modules).toContain(action.checks.module);
      }
    }
  });
});
