/**
 * The first start of an empty store creates one test-mode admin key (every scope, every entity, the
 * highest tier) and returns its secret so that it can be printed once. Later starts create nothing.
 */
import { countKeys, createKey } from '../store/keys.js';
import type { Db } from '../store/schema.js';
import type { PlatformData } from '../core/dispatch-types.js';

export async function ensureFirstKey(db: Db, platform: PlatformData): Promise<string | undefined> {
  if ((await countKeys(db)) > 0) return undefined;
  const { secret } = await createKey(db, {
    mode: 'test',
    name: 'first admin key',
    scopes: ['*'],
    entities: '*',
    tier: platform.tiers.at(-1)!.name,
  });
  return secret;
}
