/**
 * The `keys` face. A key acts in its own mode and can only hand out what it holds: scopes it holds, entities
 * it covers, a tier no higher than its own. It sees only the keys whose entities it covers.
 */
import type { KeysHandlers, KeysKey } from '../../../generated/server/types.js';
import type { ServedCatalogue } from '../../core/context.js';
import { ApiError } from '../../core/errors.js';
import { coversEntity, holdsScope } from '../../core/grants.js';
import { parseInstant } from '../../store/instant.js';
import { createKey, expireKey, getKey, listKeys, revokeKey, type Entities, type KeyRecord } from '../../store/keys.js';

/** What keys may be given in the served catalogue: its scopes (and their `<face>:*` families) and tiers, by rank. */
interface Grants {
  readonly scopes: ReadonlySet<string>;
  readonly tierRank: ReadonlyMap<string, number>;
}

/** Made once per catalogue a server serves, on its first keys call. */
const grantsOf = new WeakMap<ServedCatalogue, Grants>();

function grants(catalogue: ServedCatalogue): Grants {
  let known = grantsOf.get(catalogue);
  if (!known) {
    const scopes = [...catalogue.scopes.keys()];
    known = { scopes: new Set([...scopes, ...scopes.map((s) => `${s.slice(0, s.indexOf(':'))}:*`)]), tierRank: new Map(catalogue.platform.tiers.map((t, i) => [t.name, i])) };
    grantsOf.set(catalogue, known);
  }
  return known;
}

const toKey = (record: KeyRecord): KeysKey => record;

/** True when every entity of `target` is one that `holder` may act for. */
function coversEntities(holder: Entities, target: Entities): boolean {
  if (holder === '*') return true;
  return target !== '*' && target.every((id) => coversEntity(holder, id));
}

/** A wildcard can only be granted by a key that holds that wildcard (or `*`). */
function canGrant(held: readonly string[], scope: string): boolean {
  if (held.includes('*')) return true;
  if (scope === '*') return false;
  return scope.endsWith(':*') ? held.includes(scope) : holdsScope(held, scope);
}

function grantable(catalogue: ServedCatalogue, caller: KeyRecord, scopes: string[], entities: Entities, tier: string): void {
  const { scopes: known, tierRank } = grants(catalogue);
  scopes.forEach((scope, i) => {
    if (scope !== '*' && !known.has(scope)) {
      throw new ApiError('payload_invalid', `Scope "${scope}" does not exist.`, { param: `/payload/scopes/${i}` });
    }
    if (!canGrant(caller.scopes, scope)) {
      throw new ApiError('scope_not_grantable', `This key does not hold "${scope}", so it cannot grant it.`, { param: `/payload/scopes/${i}` });
    }
  });
  if (!coversEntities(caller.entities, entities)) {
    throw new ApiError('scope_not_grantable', 'The new key would act for entities this key may not act for.', { param: '/payload/entities' });
  }
  const rank = tierRank.get(tier);
  if (rank === undefined) {
    throw new ApiError('payload_invalid', `Tier "${tier}" does not exist; tiers are ${[...tierRank.keys()].join(', ')}.`, { param: '/payload/tier' });
  }
  if (rank > (tierRank.get(caller.tier) ?? -1)) {
    throw new ApiError('scope_not_grantable', `This key's tier "${caller.tier}" is below "${tier}".`, { param: '/payload/tier' });
  }
}

function checkVersion(platform: ServedCatalogue['platform'], date: string | undefined): void {
  if (date === undefined) return;
  const version = platform.versions.find((v) => v.date === date);
  if (!version) throw new ApiError('api_version_unknown', `No API version was released on ${date}.`, { param: '/payload/apiVersion' });
  if (version.status === 'retired') throw new ApiError('api_version_retired', `API version ${date} is retired.`, { param: '/payload/apiVersion' });
}

/** The expiry of a key `caller` issues: the one asked for, never later than the caller's own (a key cannot outlive its maker). */
function boundedExpiry(caller: KeyRecord, asked: string | undefined): string | undefined {
  if (!caller.expiresAt) return asked;
  if (!asked) return caller.expiresAt;
  return parseInstant(asked) <= Date.parse(caller.expiresAt) ? asked : caller.expiresAt;
}

async function visibleKey(ctx: { db: Parameters<typeof getKey>[0]; key: KeyRecord }, id: string): Promise<KeyRecord> {
  const found = await getKey(ctx.db, ctx.key.mode, id);
  if (!found || !coversEntities(ctx.key.entities, found.entities)) {
    throw new ApiError('resource_not_found', `No key ${id}.`, { param: '/payload/id' });
  }
  return found;
}

export const handlers: KeysHandlers = {
  async create(payload, ctx) {
    const tier = payload.tier ?? ctx.key.tier;
    grantable(ctx.catalogue, ctx.key, payload.scopes, payload.entities, tier);
    checkVersion(ctx.catalogue.platform, payload.apiVersion);
    if (payload.expiresAt && parseInstant(payload.expiresAt) <= Date.now()) {
      throw new ApiError('payload_invalid', 'expiresAt must be in the future.', { param: '/payload/expiresAt' });
    }
    const callerExpiry = ctx.key.expiresAt;
    if (callerExpiry && payload.expiresAt && parseInstant(payload.expiresAt) > Date.parse(callerExpiry)) {
      throw new ApiError('scope_not_grantable', `This key expires at ${callerExpiry}; a key it creates cannot expire later.`, { param: '/payload/expiresAt' });
    }
    const expiresAt = boundedExpiry(ctx.key, payload.expiresAt);
    const { record, secret } = await createKey(ctx.db, {
      mode: ctx.key.mode,
      name: payload.name,
      scopes: payload.scopes,
      entities: payload.entities,
      tier,
      apiVersion: payload.apiVersion,
      expiresAt,
    });
    ctx.emit('keys.key.created', toKey(record));
    return { ...toKey(record), key: secret };
  },

  async list(payload, ctx) {
    const all = await listKeys(ctx.db, { mode: ctx.key.mode, includeRevoked: payload.includeRevoked, startingAfter: payload.startingAfter });
    const visible = all.filter((k) => coversEntities(ctx.key.entities, k.entities));
    return { items: visible.slice(0, payload.limit).map(toKey), hasMore: visible.length > payload.limit };
  },

  async get(payload, ctx) {
    return toKey(await visibleKey(ctx, payload.id));
  },

  async revoke(payload, ctx) {
    const target = await visibleKey(ctx, payload.id);
    // Revoking a key is as strong as issuing it: only a key that could have granted it may.
    grantable(ctx.catalogue, ctx.key, target.scopes, target.entities, target.tier);
    const revoked = toKey((await revokeKey(ctx.db, ctx.key.mode, payload.id))!);
    ctx.emit('keys.key.revoked', revoked);
    return revoked;
  },

  async rotate(payload, ctx) {
    const old = await visibleKey(ctx, payload.id);
    if (old.revokedAt) throw new ApiError('key_revoked', undefined, { param: '/payload/id' });
    const now = Date.now();
    if (old.expiresAt && Date.parse(old.expiresAt) <= now) throw new ApiError('key_expired', `The key ${old.id} expired at ${old.expiresAt}.`, { param: '/payload/id' });
    // A new secret for a key is a new grant of everything it holds, under the rules of create: nothing the
    // caller could not grant, and no later expiry than the caller's own.
    grantable(ctx.catalogue, ctx.key, old.scopes, old.entities, old.tier);
    const { record, secret } = await createKey(ctx.db, {
      mode: old.mode,
      name: old.name,
      scopes: old.scopes,
      entities: old.entities,
      tier: old.tier,
      apiVersion: old.apiVersion,
      expiresAt: boundedExpiry(ctx.key, old.expiresAt),
    });
    // The grace period never lets the old secret live longer than it already would.
    const graceEnds = now + payload.graceSeconds * 1000;
    const previous = await expireKey(ctx.db, old.mode, old.id, new Date(old.expiresAt ? Math.min(graceEnds, Date.parse(old.expiresAt)) : graceEnds));
    ctx.emit('keys.key.rotated', { newKey: toKey(record), previousKey: toKey(previous!) });
    return { newKey: { ...toKey(record), key: secret }, previousKey: toKey(previous!) };
  },
};
