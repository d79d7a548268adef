/**
 * The gate every import hashes through: however many imports run, bulk hashing holds at most its lanes of
 * the thread pool; passwords come back in order; a full queue refuses at once; an abort stops the work.
 */
import { describe, expect, it } from 'vitest';
import { BulkHasher } from '../../src/providers/bulk-hashing.js';
import { ApiError } from '../../src/core/errors.js';
import { shippedStatus } from '../helpers/errors.js';

/** A stand-in for scrypt that takes `ms` and counts how many run at once. */
function slowHash(ms: number) {
  const seen = { running: 0, most: 0 };
  const hash = async (password: string) => {
    seen.running++;
    seen.most = Math.max(seen.most, seen.running);
    await new Promise((r) => setTimeout(r, ms));
    seen.running--;
    return `hashed:${password}`;
  };
  return { seen, hash };
}

describe('BulkHasher', () => {
  it('holds at most its lanes however many imports run, and answers each in order', async () => {
    const { seen, hash } = slowHash(5);
    const hasher = new BulkHasher({ lanes: 1, hash });
    const imports = Array.from({ length: 4 }, (_, n) => Array.from({ length: 5 }, (_, i) => `p${n}-${i}`));
    const progress: number[] = [];
    const results = await Promise.all(imports.map((passwords) => hasher.hashAll(passwords, new AbortController().signal, (done) => progress.push(done))));
    expect(seen.most).toBe(1);
    expect(results).toEqual(imports.map((passwords) => passwords.map((p) => `hashed:${p}`)));
    expect(progress.filter((d) => d === 5)).toHaveLength(4);
  });

  it('refuses an import at once when too many passwords wait, and takes it again once they are done', async () => {
    const { hash } = slowHash(5);
    const hasher = new BulkHasher({ lanes: 1, maxQueued: 10, hash });
    const signal = new AbortController().signal;
    const first = hasher.hashAll(Array.from({ length: 8 }, (_, i) => `a${i}`), signal, () => {});
    const refused = await hasher.hashAll(['b0', 'b1', 'b2'], signal, () => {}).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ code: 'import_busy', headers: { 'Retry-After': '5' } });
    expect(shippedStatus(refused as ApiError)).toBe(503);
    await first;
    expect(await hasher.hashAll(['b0', 'b1', 'b2'], signal, () => {})).toHaveLength(3);
  });

  it('stops when its call is aborted, and gives back what it held', async () => {
    const { hash } = slowHash(5);
    const hasher = new BulkHasher({ lanes: 1, maxQueued: 6, hash });
    const controller = new AbortController();
    const stopped = hasher.hashAll(['a', 'b', 'c', 'd', 'e', 'f'], controller.signal, (done) => done === 2 && controller.abort(new Error('gone')));
    await expect(stopped).rejects.toThrow('gone');
    expect(await hasher.hashAll(['x', 'y', 'z', 'w', 'v', 'u'], new AbortController().signal, () => {})).toHaveLength(6);
  });

  it('gives back exactly what a failed import held, so the queue bound stays true', async () => {
    const hasher = new BulkHasher({ lanes: 1, maxQueued: 3, hash: async (p) => (p === 'bad' ? Promise.reject(new Error('no')) : `hashed:${p}`) });
    const signal = new AbortController().signal;
    for (let i = 0; i < 3; i++) await expect(hasher.hashAll(['a', 'bad', 'c'], signal, () => {})).rejects.toThrow('no');
    await expect(hasher.hashAll(['1', '2', '3', '4', '5'], signal, () => {})).rejects.toMatchObject({ code: 'import_busy' });
    expect(await hasher.hashAll(['1', '2', '3'], signal, () => {})).toHaveLength(3);
  });
});
