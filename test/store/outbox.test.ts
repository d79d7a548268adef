/**
 * Store conformance for calls and the outbox, on every store implementation: the call transaction (begun
 * lazily, committed or rolled back whole, closed afterwards, with effects that wait for the commit), the
 * fan-out of events to subscribed endpoints, and the delivery queue leased by competing connections.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newId } from '../../src/store/secrets.js';
import { eventStatements, purgeEvents, writeEventBatches, writeEvents, type EventOrigin } from '../../src/store/events.js';
import { claimIdempotencyKey } from '../../src/store/idempotency.js';
import { embeddedStore, postgresPool, storeKind } from '../../src/store/open.js';
import { openShippedStore } from '../../src/server/shipped.js';
import type { Db, Mode } from '../../src/store/schema.js';
import { afterCommit, CallTransaction } from '../../src/store/transaction.js';
import { ClaimNoLongerHeld, CommitGroup } from '../../src/store/commit-group.js';
import { writeUnsubscribed } from '../../src/store/unsubscribed-writes.js';
import { endpointsOfPartitions, partitionKey } from '../../src/store/partition-endpoints.js';
import { insertEndpoint, leaseDueDeliveries, loadDeliveries, settleDelivery } from '../../src/faces/webhooks/store.js';
import { implementations, type StoreLocation } from './implementations.js';

const iso = (ms = 0) => new Date(Date.now() + ms).toISOString();

describe.each(implementations)('calls and the outbox on $name', (impl) => {
  let location: StoreLocation;
  let db: Db;
  let other: Db;

  beforeAll(async () => {
    location = await impl.create();
    db = await openShippedStore(location.config);
    other = await openShippedStore(location.config);
  });
  afterAll(async () => {
    await other?.destroy();
    await db?.destroy();
    await location?.remove();
  });

  const origin = (entityId: string, mode: Mode = 'test'): EventOrigin => ({ mode, entityId, apiVersion: '2026-09-01', requestId: newId('req') });
  const event = (type = 'auth.signup.succeeded', endpointId?: string) => ({ id: newId('evt'), type, data: { n: 1 }, ...(endpointId ? { endpointId } : {}) });
  const eventCount = async (entityId: string) => (await db.selectFrom('events').select('id').where('entity_id', '=', entityId).execute()).length;

  /** An endpoint of the partition, inserted through `options.on` (by default the test's store). */
  async function endpoint(entityId: string, eventTypes: string[], options: { mode?: Mode; status?: 'enabled' | 'disabled'; on?: Db } = {}) {
    const id = newId('wh');
    await insertEndpoint(options.on ?? db, {
      id, mode: options.mode ?? 'test', entity_id: entityId, url: 'https://example.com/hooks', description: null,
      event_types: JSON.stringify(eventTypes), status: options.status ?? 'enabled', disabled_reason: null,
      secret: 'whsec_x', previous_secret: null, previous_secret_expires_at: null, created_at: iso(), updated_at: iso(),
    });
    return id;
  }
  const deliveriesTo = async (endpointId: string) =>
    (await db.selectFrom('webhook_deliveries as d').innerJoin('events as e', 'e.id', 'd.event_id').select('e.type').where('d.endpoint_id', '=', endpointId).execute()).map((r) => r.type).sort();

  describe('the call transaction', () => {
    it('begins with its first write, not its reads, and commits everything written through it', async () => {
      const entity = newId('ent');
      const tx = new CallTransaction(db);
      expect(await eventCountVia(tx.db, entity)).toBe(0);
      expect(tx.begun).toBe(false);
      await writeEvents(tx.db, origin(entity), [event(), event()]);
      expect(tx.begun).toBe(true);
      // From the first write on, its reads see its own writes; nobody else does before the commit.
      expect(await eventCountVia(tx.db, entity)).toBe(2);
      expect(await eventCountVia(other, entity)).toBe(0);
      await tx.commit();
      expect(await eventCount(entity)).toBe(2);
    });

    it('rolls back everything written through it, and refuses queries once finished', async () => {
      const entity = newId('ent');
      const tx = new CallTransaction(db);
      await writeEvents(tx.db, origin(entity), [event()]);
      await tx.rollback();
      expect(await eventCount(entity)).toBe(0);
      await expect(tx.db.selectFrom('events').select('id').execute()).rejects.toThrow(/transaction is closed/);
      await tx.rollback();
    });

    it('keeps what it wrote from others until it commits', async () => {
      const entity = newId('ent');
      const tx = new CallTransaction(db);
      await writeEvents(tx.db, origin(entity), [event()]);
      expect(await eventCountVia(other, entity)).toBe(0);
      await tx.commit();
      expect(await eventCountVia(other, entity)).toBe(1);
    });

    it('runs effects after the commit, never after a rollback, and at once outside a call', async () => {
      const order: string[] = [];
      const committed = new CallTransaction(db);
      await writeEvents(committed.db, origin(newId('ent')), [event()]);
      afterCommit(committed.db, () => order.push('committed'));
      expect(order).toEqual([]);
      await committed.commit();
      const rolledBack = new CallTransaction(db);
      afterCommit(rolledBack.db, () => order.push('rolled back'));
      await rolledBack.rollback();
      afterCommit(db, () => order.push('root'));
      expect(order).toEqual(['committed', 'root']);
    });
  });

  describe('group commit', () => {
    /** A running claim of a new key in `entity`'s scope, as a call holds it while it runs. */
    async function claim(entity: string) {
      const now = iso();
      const held = { scope: `key:test:${entity}`, key: newId('idem'), fingerprint: 'fp', now, expiresAt: iso(60_000), leaseUntil: iso(30_000) };
      expect(await claimIdempotencyKey(db, held)).toMatchObject({ claimed: true });
      return held;
    }
    const eventRow = (entityId: string) => ({
      id: newId('evt'), mode: 'test' as const, entity_id: entityId, type: 'auth.signup.succeeded', api_version: '2026-09-01',
      request_id: newId('req'), idempotency_key: null, data: '{}', created_at: iso(),
    });
    const reply = (held: Awaited<ReturnType<typeof claim>>, body = '{"data":1}') => ({ ...held, status: 200, body, headers: '{}' });
    const recordOf = async (held: Awaited<ReturnType<typeof claim>>) =>
      db.selectFrom('idempotency_records').select(['state', 'status']).where('scope', '=', held.scope).where('key', '=', held.key).executeTakeFirstOrThrow();
    /** Another request takes these claims' keys over, as a retry does once a lease lapses: their calls may no longer write. */
    const takeOver = (...held: Awaited<ReturnType<typeof claim>>[]) =>
      db.updateTable('idempotency_records').set({ leased_until: iso(90_000) }).where('key', 'in', held.map((h) => h.key)).execute();

    it('commits the writes of concurrent calls in one transaction, and answers each once it is committed', async () => {
      const group = new CommitGroup(db);
      const entities = Array.from({ length: 10 }, () => newId('ent'));
      const claims = await Promise.all(entities.map(claim));
      const subscribed = await endpoint(entities[0]!, ['*']);
      await Promise.all(
        entities.map(async (entity, i) => {
          await group.commit({ events: { origin: origin(entity), events: [event()] }, completion: reply(claims[i]!) });
          // Committed by the time the call is answered: another connection sees it, and its stored reply.
          expect(await eventCountVia(other, entity)).toBe(1);
          expect(await recordOf(claims[i]!)).toEqual({ state: 'done', status: 200 });
        }),
      );
      // Written by one group: every event of it has the group's time.
      const times = await db.selectFrom('events').select('created_at').where('entity_id', 'in', entities).execute();
      expect(new Set(times.map((t) => t.created_at)).size).toBe(1);
      expect(await deliveriesTo(subscribed)).toEqual(['auth.signup.succeeded']);
    });

    it('stores the reply of a call that emitted nothing with the others', async () => {
      const group = new CommitGroup(db);
      const [quiet, loud] = [newId('ent'), newId('ent')];
      const held = await claim(quiet);
      await Promise.all([group.commit({ completion: reply(held) }), group.commit({ events: { origin: origin(loud), events: [event()] } })]);
      expect(await recordOf(held)).toEqual({ state: 'done', status: 200 });
      expect([await eventCount(quiet), await eventCount(loud)]).toEqual([0, 1]);
    });

    it('fails only the write at fault when a group fails: a reply whose claim is no longer held', async () => {
      const group = new CommitGroup(db);
      const [good, bad, alsoGood] = [newId('ent'), newId('ent'), newId('ent')];
      const [goodClaim, badClaim] = [await claim(good), await claim(bad)];
      // Another request took the key over: the late call's effects must not commit.
      await takeOver(badClaim);
      const outcomes = await Promise.allSettled([
        group.commit({ events: { origin: origin(good), events: [event()] }, completion: reply(goodClaim) }),
        group.commit({ events: { origin: origin(bad), events: [event()] }, completion: reply(badClaim) }),
        group.commit({ events: { origin: origin(alsoGood), events: [event()] } }),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(ClaimNoLongerHeld);
      expect([await eventCount(good), await eventCount(bad), await eventCount(alsoGood)]).toEqual([1, 0, 1]);
      expect([(await recordOf(goodClaim)).state, (await recordOf(badClaim)).state]).toEqual(['done', 'running']);
    });

    it('writes a group whose calls only emitted events, subscribed to or not, beside replies, each event once', async () => {
      const group = new CommitGroup(db);
      const [quiet, subscribedEntity, replying] = [newId('ent'), newId('ent'), newId('ent')];
      const subscribed = await endpoint(subscribedEntity, ['auth.*']);
      const held = await claim(replying);
      await Promise.all([
        group.commit({ events: { origin: origin(quiet), events: [event(), event('keys.key.created')] } }),
        group.commit({ events: { origin: origin(subscribedEntity), events: [event(), event('keys.key.created')] } }),
        group.commit({ events: { origin: origin(quiet, 'live'), events: [event()] } }),
        group.commit({ events: { origin: origin(replying), events: [event()] }, completion: reply(held) }),
      ]);
      expect([await eventCount(quiet), await eventCount(subscribedEntity), await eventCount(replying)]).toEqual([3, 2, 1]);
      expect(await deliveriesTo(subscribed)).toEqual(['auth.signup.succeeded']);
      expect(await recordOf(held)).toEqual({ state: 'done', status: 200 });
      // Each call's events are answered as committed: another connection sees them.
      expect(await eventCountVia(other, quiet)).toBe(3);
    });

    it('fails only the call at fault when a group of events fails: an event id written before', async () => {
      const group = new CommitGroup(db);
      const [first, second, third] = [newId('ent'), newId('ent'), newId('ent')];
      const taken = event();
      await writeEvents(db, origin(first), [taken]);
      const outcomes = await Promise.allSettled([
        group.commit({ events: { origin: origin(second), events: [event()] } }),
        group.commit({ events: { origin: origin(third), events: [event(), { ...taken }] } }),
        group.commit({ events: { origin: origin(second), events: [event()] } }),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect([await eventCount(first), await eventCount(second), await eventCount(third)]).toEqual([1, 2, 0]);
    });

    it.runIf(impl.name === 'PostgreSQL')('writes, by one statement, the events of partitions with no enabled endpoint, and leaves the others', async () => {
      const [quiet, subscribedEntity, disabledOnly] = [newId('ent'), newId('ent'), newId('ent')];
      // An endpoint in one mode leaves the other mode's partition of the same entity without one.
      await endpoint(subscribedEntity, ['billing.*']);
      await endpoint(disabledOnly, ['*'], { status: 'disabled' });
      const writes = [
        { events: { origin: origin(quiet), events: [event(), event('keys.key.created')] } },
        { events: { origin: origin(subscribedEntity), events: [event()] } },
        { events: { origin: origin(subscribedEntity, 'live'), events: [event()] } },
        { events: { origin: origin(disabledOnly), events: [event()] } },
      ];
      // Every enabled endpoint sends its partition's events to the transaction, whatever it subscribes to.
      expect(await writeUnsubscribed(db, writes, iso())).toEqual({ subscribed: new Set([1]), lost: new Set() });
      const modes = async (entity: string) => (await db.selectFrom('events').select('mode').where('entity_id', '=', entity).execute()).map((r) => r.mode);
      expect([await eventCount(quiet), await eventCount(disabledOnly)]).toEqual([2, 1]);
      expect(await modes(subscribedEntity)).toEqual(['live']);

      // A statement that fails for its own content (an event id written before) keeps its connection.
      const pool = postgresPool(db)!;
      const connections = pool.totalCount;
      await expect(writeUnsubscribed(db, [{ events: { origin: origin(quiet), events: [writes[0]!.events.events[0]!] } }], iso())).rejects.toMatchObject({ code: '23505' });
      expect(pool.totalCount).toBe(connections);
      // A handle derived from the store's, with no pool of its own, writes the same way.
      const derived = db.withoutPlugins();
      expect(await writeUnsubscribed(derived, [{ events: { origin: origin(quiet), events: [event()] } }], iso())).toEqual({ subscribed: new Set(), lost: new Set() });
      expect(await eventCount(quiet)).toBe(3);
    });

    it.runIf(impl.name === 'PostgreSQL')('stores, in the same statement, the replies of calls with no subscribed partition, each call whole or not at all', async () => {
      const [replying, silent, late, lateSilent, subscribedEntity] = [newId('ent'), newId('ent'), newId('ent'), newId('ent'), newId('ent')];
      await endpoint(subscribedEntity, ['*']);
      const claims = [await claim(replying), await claim(silent), await claim(late), await claim(lateSilent), await claim(subscribedEntity)];
      const [replyingClaim, silentClaim, lateClaim, lateSilentClaim, subscribedClaim] = claims;
      // Taken over by retries: these calls' replies must not be stored, nor their events written.
      await takeOver(lateClaim!, lateSilentClaim!);
      const writes = [
        { events: { origin: origin(replying), events: [event()] }, completion: reply(replyingClaim!) },
        { completion: reply(silentClaim!) },
        { events: { origin: origin(late), events: [event(), event()] }, completion: reply(lateClaim!) },
        { completion: reply(lateSilentClaim!) },
        { events: { origin: origin(subscribedEntity), events: [event()] }, completion: reply(subscribedClaim!) },
      ];
      expect(await writeUnsubscribed(db, writes, iso())).toEqual({ subscribed: new Set([4]), lost: new Set([2, 3]) });
      expect(await Promise.all(claims.map(async (held) => (await recordOf(held!)).state))).toEqual(['done', 'done', 'running', 'running', 'running']);
      expect([await eventCount(replying), await eventCount(late), await eventCount(subscribedEntity)]).toEqual([1, 0, 0]);
      // The reply is stored sealed, as the transaction stores it, and read back as it was answered.
      const stored = await db.selectFrom('idempotency_records').select('body').where('key', '=', replyingClaim!.key).executeTakeFirstOrThrow();
      expect(stored.body).toMatch(/^sealed:v1:/);
      expect(await claimIdempotencyKey(db, { ...replyingClaim!, now: iso() })).toMatchObject({ claimed: false, record: { status: 200, body: '{"data":1}' } });
    });

    it.runIf(impl.name === 'PostgreSQL')('fails a call whose claim was taken over at once, without a transaction, and commits the others of its group', async () => {
      const group = new CommitGroup(db);
      const [late, subscribedEntity, quiet] = [newId('ent'), newId('ent'), newId('ent')];
      await endpoint(subscribedEntity, ['*']);
      const [lateClaim, subscribedClaim] = [await claim(late), await claim(subscribedEntity)];
      await takeOver(lateClaim);
      const rollbacks = vi.spyOn(CallTransaction.prototype, 'rollback');
      try {
        const outcomes = await Promise.allSettled([
          group.commit({ events: { origin: origin(late), events: [event()] }, completion: reply(lateClaim) }),
          group.commit({ events: { origin: origin(subscribedEntity), events: [event()] }, completion: reply(subscribedClaim) }),
          group.commit({ events: { origin: origin(quiet), events: [event()] } }),
        ]);
        expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
        expect((outcomes[0] as PromiseRejectedResult).reason).toBeInstanceOf(ClaimNoLongerHeld);
        expect([await eventCount(late), await eventCount(subscribedEntity), await eventCount(quiet)]).toEqual([0, 1, 1]);
        expect(await recordOf(subscribedClaim)).toEqual({ state: 'done', status: 200 });
        // Told apart by the statement: the subscribed call's transaction did not fail for the other's claim.
        expect(rollbacks).not.toHaveBeenCalled();
      } finally {
        rollbacks.mockRestore();
      }
    });

    it('delivers to an endpoint made after a group found its partition without one, and to one changed since', async () => {
      const group = new CommitGroup(db);
      const entity = newId('ent');
      await group.commit({ events: { origin: origin(entity), events: [event()] } });
      // Made after the group above knew the partition: the next group finds it all the same.
      const made = await endpoint(entity, ['auth.*']);
      await group.commit({ events: { origin: origin(entity), events: [event('auth.login.succeeded')] } });
      await group.commit({ events: { origin: origin(entity), events: [event('keys.key.created')] } });
      expect(await deliveriesTo(made)).toEqual(['auth.login.succeeded']);
      // Subscribed to other types since.
      await db.updateTable('webhook_endpoints').set({ event_types: JSON.stringify(['keys.*']) }).where('id', '=', made).execute();
      await group.commit({ events: { origin: origin(entity), events: [event('keys.key.created')] } });
      await group.commit({ events: { origin: origin(entity), events: [event('auth.login.succeeded')] } });
      expect(await deliveriesTo(made)).toEqual(['auth.login.succeeded', 'keys.key.created']);
      expect(await eventCount(entity)).toBe(5);
    });

    it.runIf(impl.name === 'SQLite')('keeps copies of endpoints for a bounded number of partitions, and reads again past it', async () => {
      // A store of its own, so that no other test's partitions count towards the bound.
      const location = await impl.create();
      const db = await openShippedStore(location.config);
      try {
        await copiesBounded(db);
      } finally {
        await db.destroy();
        await location.remove();
      }
    });

    async function copiesBounded(db: Db) {
      const store = embeddedStore(db)!;
      const subscribedEntity = newId('ent');
      const made = await endpoint(subscribedEntity, ['*'], { on: db });
      const asked: string[][] = [];
      const read = (unseen: ReadonlyMap<string, { mode: Mode; entityId: string }>) => {
        asked.push([...unseen.keys()]);
        const pairs = [...unseen.values()];
        return db
          .selectFrom('webhook_endpoints')
          .select(['id', 'mode', 'entity_id', 'event_types'])
          .where('status', '=', 'enabled')
          .where((eb) => eb.or(pairs.map((p) => eb.and([eb('mode', '=', p.mode), eb('entity_id', '=', p.entityId)]))))
          .orderBy('id')
          .compile();
      };
      const partitions = (entities: string[]) => new Map(entities.map((entityId) => [partitionKey('test', entityId), { mode: 'test' as Mode, entityId }]));
      const subscribed = partitions([subscribedEntity]);
      expect(endpointsOfPartitions(db, store, subscribed, read).map((e) => e.id)).toEqual([made]);
      expect(endpointsOfPartitions(db, store, subscribed, read).map((e) => e.id)).toEqual([made]);
      expect(asked).toHaveLength(1);
      // 9,960 partitions more, sixty at a time as groups meet them: 9,961 copies, under the bound of 10,000.
      for (let i = 0; i < 9_960; i += 60) endpointsOfPartitions(db, store, partitions(Array.from({ length: 60 }, (_, n) => `crowd-${i + n}`)), read);
      asked.length = 0;
      // Forty unseen ones would pass it: the copies start over, and the group's known partitions are read too.
      const mixed = new Map([...partitions(['crowd-0', ...Array.from({ length: 40 }, () => newId('ent'))]), ...subscribed]);
      expect(endpointsOfPartitions(db, store, mixed, read).map((e) => e.id)).toEqual([made]);
      expect(asked).toEqual([[...mixed.keys()]]);
      asked.length = 0;
      expect(endpointsOfPartitions(db, store, subscribed, read).map((e) => e.id)).toEqual([made]);
      expect(asked).toEqual([]);
    }

    it('runs again only the writes not yet committed when the rest of a group fails', async () => {
      const group = new CommitGroup(db);
      const [quiet, subscribedEntity, first] = [newId('ent'), newId('ent'), newId('ent')];
      await endpoint(subscribedEntity, ['*']);
      const taken = event();
      await writeEvents(db, origin(first), [taken]);
      const rollbacks = vi.spyOn(CallTransaction.prototype, 'rollback');
      try {
        const outcomes = await Promise.allSettled([
          group.commit({ events: { origin: origin(quiet), events: [event()] } }),
          group.commit({ events: { origin: origin(subscribedEntity), events: [{ ...taken }] } }),
        ]);
        expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected']);
        expect([await eventCount(quiet), await eventCount(subscribedEntity)]).toEqual([1, 0]);
        // Only the faulty write's transaction rolled back: the committed one was not run again.
        expect(rollbacks).toHaveBeenCalledTimes(1);
      } finally {
        rollbacks.mockRestore();
      }
    });

    it.runIf(impl.name === 'SQLite')('commits a batch of several partitions whose endpoints come from the copies of earlier groups', async () => {
      const store = embeddedStore(db)!;
      const [a, b] = [newId('ent'), newId('ent')];
      const endpoints = [await endpoint(a, ['*']), await endpoint(b, ['*']), await endpoint(a, ['auth.*']), await endpoint(b, ['keys.*'])];
      // Each partition's endpoints copied by a group of its own, then both in one batch, in id order across them.
      for (const entity of [a, b]) await store.writeBatch(eventStatements(store, db, [{ origin: origin(entity), events: [event('keys.key.created')] }]).statements);
      const both = eventStatements(store, db, [
        { origin: origin(a), events: [event()] },
        { origin: origin(b), events: [event()] },
      ]);
      await store.writeBatch(both.statements);
      expect(await Promise.all(endpoints.map(deliveriesTo))).toEqual([
        ['auth.signup.succeeded', 'keys.key.created'],
        ['auth.signup.succeeded', 'keys.key.created'],
        ['auth.signup.succeeded'],
        ['keys.key.created'],
      ]);
      // An endpoint made through another connection to the store: the copies no longer hold, and the batch says so.
      await endpoint(a, ['*'], { on: other });
      await expect(store.writeBatch(eventStatements(store, db, [{ origin: origin(a), events: [event()] }]).statements)).rejects.toMatchObject({ code: 'BATCH_UNMET' });
    });

    it.runIf(impl.name === 'SQLite')('refuses a batch whose endpoints changed after they were read, and writes none of it', async () => {
      const store = embeddedStore(db)!;
      const entity = newId('ent');
      const { statements } = eventStatements(store, db, [{ origin: origin(entity), events: [event()] }]);
      await endpoint(entity, ['*']);
      await expect(store.writeBatch(statements)).rejects.toMatchObject({ code: 'BATCH_UNMET' });
      expect(await eventCount(entity)).toBe(0);
    });
  });

  describe('fan-out', () => {
    it('writes the events of several calls, each to the endpoints of its own partition', async () => {
      const [a, b] = [newId('ent'), newId('ent')];
      const [toA, toB] = [await endpoint(a, ['*']), await endpoint(b, ['auth.*'])];
      await writeEventBatches(db, [
        { origin: origin(a), events: [event('keys.key.created'), event('auth.signup.succeeded')] },
        { origin: origin(b), events: [event('keys.key.created'), event('auth.login.succeeded')] },
        { origin: origin(a, 'live'), events: [event('auth.login.succeeded')] },
      ]);
      expect(await deliveriesTo(toA)).toEqual(['auth.signup.succeeded', 'keys.key.created']);
      expect(await deliveriesTo(toB)).toEqual(['auth.login.succeeded']);
      expect([await eventCount(a), await eventCount(b)]).toEqual([3, 2]);
    });

    it('queues a delivery for every enabled endpoint of the partition whose patterns match', async () => {
      const entity = newId('ent');
      const exact = await endpoint(entity, ['auth.signup.succeeded']);
      const face = await endpoint(entity, ['keys.*']);
      const all = await endpoint(entity, ['*']);
      const disabled = await endpoint(entity, ['*'], { status: 'disabled' });
      const live = await endpoint(entity, ['*'], { mode: 'live' });
      const elsewhere = await endpoint(newId('ent'), ['*']);
      await writeEvents(db, origin(entity), [event('auth.signup.succeeded'), event('keys.key.created'), event('ai.generate.completed')]);
      expect(await deliveriesTo(exact)).toEqual(['auth.signup.succeeded']);
      expect(await deliveriesTo(face)).toEqual(['keys.key.created']);
      expect(await deliveriesTo(all)).toEqual(['ai.generate.completed', 'auth.signup.succeeded', 'keys.key.created']);
      for (const none of [disabled, live, elsewhere]) expect(await deliveriesTo(none)).toEqual([]);
    });

    it('sends an event addressed to one endpoint to that endpoint only', async () => {
      const entity = newId('ent');
      const target = await endpoint(entity, ['auth.*']);
      const bystander = await endpoint(entity, ['*']);
      await writeEvents(db, origin(entity), [event('webhooks.endpoint.ping', target)]);
      expect(await deliveriesTo(target)).toEqual(['webhooks.endpoint.ping']);
      expect(await deliveriesTo(bystander)).toEqual([]);
    });
  });

  it('purges events past their retention with their deliveries, and keeps the rest', async () => {
    const entity = newId('ent');
    const target = await endpoint(entity, ['*']);
    await writeEvents(db, origin(entity), [event('auth.signup.succeeded'), event('keys.key.created')]);
    const [old] = await db.selectFrom('events').select('id').where('entity_id', '=', entity).where('type', '=', 'auth.signup.succeeded').execute();
    await db.updateTable('events').set({ created_at: '2020-01-01T00:00:00.000Z' }).where('id', '=', old!.id).execute();
    expect(await purgeEvents(db, '2021-01-01T00:00:00.000Z')).toBeGreaterThanOrEqual(1);
    expect((await db.selectFrom('events').select('type').where('entity_id', '=', entity).execute()).map((r) => r.type)).toEqual(['keys.key.created']);
    expect(await deliveriesTo(target)).toEqual(['keys.key.created']);
  });

  describe('the delivery queue', () => {
    it('leases each due delivery to one of several competing connections', async () => {
      const entity = newId('ent');
      await endpoint(entity, ['*']);
      await writeEvents(db, origin(entity), Array.from({ length: 30 }, () => event()));
      const skipLocked = storeKind(db) === 'postgres';
      const lease = (store: Db) => leaseDueDeliveries(store, { now: iso(), leaseUntil: iso(60_000), limit: 4, skipLocked });
      const taken: string[] = [];
      for (;;) {
        const rounds = await Promise.all([lease(db), lease(other), lease(db), lease(other)]);
        taken.push(...rounds.flat());
        if (rounds.every((r) => r.length === 0)) break;
      }
      const mine = await db.selectFrom('webhook_deliveries').select('id').where('entity_id', '=', entity).execute();
      expect(taken.filter((id) => mine.some((m) => m.id === id)).sort()).toEqual(mine.map((m) => m.id).sort());
      expect(new Set(taken).size).toBe(taken.length);
    });

    it('leases no more than the limit, however many are due, with competing connections', async () => {
      const entity = newId('ent');
      await endpoint(entity, ['*']);
      await writeEvents(db, origin(entity), Array.from({ length: 320 }, () => event()));
      const skipLocked = storeKind(db) === 'postgres';
      const lease = (store: Db) => leaseDueDeliveries(store, { now: iso(), leaseUntil: iso(60_000), limit: 2, skipLocked });
      for (let round = 0; round < 5; round++) {
        const leased = await Promise.all([lease(db), lease(other)]);
        for (const ids of leased) expect(ids.length).toBeLessThanOrEqual(2);
        expect(leased.flat().length).toBeGreaterThan(0);
      }
    });

    it('hands a delivery whose lease lapsed to another worker, and ignores the late settlement of the first', async () => {
      const entity = newId('ent');
      await endpoint(entity, ['*']);
      await writeEvents(db, origin(entity), [event()]);
      const skipLocked = storeKind(db) === 'postgres';
      // Drain what earlier tests left due, so that only this delivery is in play.
      while ((await leaseDueDeliveries(db, { now: iso(), leaseUntil: iso(3_600_000), limit: 100, skipLocked })).length > 0);
      const [id] = (await db.selectFrom('webhook_deliveries').select('id').where('entity_id', '=', entity).execute()).map((r) => r.id);
      await db.updateTable('webhook_deliveries').set({ leased_until: iso(-1000) }).where('id', '=', id!).execute();
      const stale = (await loadDeliveries(db, [id!]))[0]!.delivery;
      expect(await leaseDueDeliveries(other, { now: iso(), leaseUntil: iso(60_000), limit: 10, skipLocked })).toEqual([id]);
      const settled = await settleDelivery(db, stale, {
        leasedUntil: stale.leased_until!, status: 'succeeded', nextAttemptAt: iso(), firstAttemptAt: iso(), lastStatus: 200, lastError: null,
        attempt: { delivery_id: id!, attempt: 1, started_at: iso(), duration_ms: 1, response_status: 200, error: null, succeeded: 1 },
      });
      expect(settled).toBe(false);
      expect(await db.selectFrom('webhook_attempts').select('attempt').where('delivery_id', '=', id!).execute()).toEqual([]);
    });
  });
});

async function eventCountVia(store: Db, entityId: string): Promise<number> {
  return (await store.selectFrom('events').select('id').where('entity_id', '=', entityId).execute()).length;
}
