/**
 * The fixed limits of the storage face, and each tier's (faces/platform.yaml, `tiers.<name>.storage`).
 */
import type { Tier } from '../../spec/model.js';

/** Content answered or taken inline (base64 in JSON) at most: 512 KiB keeps a request under the 1 MiB body limit. */
export const INLINE_MAX_BYTES = 512 * 1024;

/** The longest a signed URL stays valid: 7 days, as S3's presigned URLs. */
export const MAX_URL_SECONDS = 7 * 86_400;

export interface StorageLimits {
  objectBytes: number;
  storedBytes: number;
}

/** A tier without storage limits: objects up to S3's largest single PUT (5 GiB), no quota. */
const UNLIMITED: StorageLimits = { objectBytes: 5 * 1024 ** 3, storedBytes: Number.MAX_SAFE_INTEGER };

/** The storage limits of each tier by name; an unknown tier gets the first tier's (as rate limits do). */
export function tierLimits(tiers: readonly Tier[]): (tier: string) => StorageLimits {
  const byName = new Map(tiers.map((t) => [t.name, t.storage ?? UNLIMITED]));
  const fallback = tiers[0]?.storage ?? UNLIMITED;
  return (tier) => byName.get(tier) ?? fallback;
}
