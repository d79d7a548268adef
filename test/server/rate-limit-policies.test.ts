/**
 * The policies a call is checked against (stages/rate-limit.ts, docs/contract.md § Rate limits): its key's tier per
 * token and per entity, and its face's and action's overrides, each made once per key, action and entity and
 * the same ones after.
 */
import { describe, expect, it } from 'vitest';
import type { ActionEntry } from '../../src/core/dispatch-types.js';
import type { RoutedCall } from '../../src/server/call.js';
import type { Runtime } from '../../src/server/runtime.js';
import { policiesFor } from '../../src/server/stages/rate-limit.js';
import type { KeyRecord } from '../../src/store/keys.js';

const tier = { name: 'free', token: { limit: 60, windowSeconds: 60 }, entity: { limit: 120, windowSeconds: 60 } };
const runtime = { catalogue: { platform: { tiers: [tier] }, faces: new Map([['notes', { rate: { free: { limit: 30, windowSeconds: 60 } } }]]) } } as unknown as Runtime;
const plain = { face: 'notes', id: 'notes.list', rate: {} } as unknown as ActionEntry;
const limited = { face: 'notes', id: 'notes.create', rate: { free: { limit: 5, windowSeconds: 1 } } } as unknown as ActionEntry;
const keyRecord = (id: string) => ({ id, tier: 'free', mode: 'test' }) as KeyRecord;
const call = (key: KeyRecord, action: ActionEntry, entityId: string) => ({ key, mode: key.mode, entityId, action }) as unknown as RoutedCall;
const buckets = (checks: readonly { key: string }[]) => checks.map((check) => check.key);

describe('the policies of a call', () => {
  it("are its key's, action's and entity's, made once and the same ones after", () => {
    const key = keyRecord('key_1');
    const first = policiesFor(call(key, plain, 'a'), runtime);
    expect(buckets(first)).toEqual(['token:key_1', 'entity:free:test:a', 'face:notes:key_1']);
    expect(policiesFor(call(key, plain, 'a'), runtime)).toBe(first);
    expect(buckets(policiesFor(call(key, plain, 'b'), runtime))).toEqual(['token:key_1', 'entity:free:test:b', 'face:notes:key_1']);
    expect(policiesFor(call(key, limited, 'a'), runtime).map((check) => check.name)).toEqual(['token', 'entity', 'face-notes', 'action-notes.create']);
    expect(buckets(policiesFor(call(keyRecord('key_2'), plain, 'a'), runtime))).toEqual(['token:key_2', 'entity:free:test:a', 'face:notes:key_2']);
  });

  it('stay right past the entities kept for one key and action', () => {
    const key = keyRecord('key_3');
    for (let i = 0; i < 2_500; i++) expect(buckets(policiesFor(call(key, plain, `e${i}`), runtime))[1]).toBe(`entity:free:test:e${i}`);
    expect(buckets(policiesFor(call(key, plain, 'e7'), runtime))[1]).toBe('entity:free:test:e7');
  });
});
