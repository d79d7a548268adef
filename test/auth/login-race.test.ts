/**
 * A login whose password check is in flight while `disableUser` runs opens no session that outlives the
 * disable, not even after `enableUser`. The race is made exact, not slept for: the login runs through a store
 * that stops it after one of its queries until the test lets it go, so the disable runs at a chosen point.
 * On SQLite and PostgreSQL the login stops after reading the user, before its password is checked; on
 * PostgreSQL also after writing its session, before its transaction commits (where a disable that does not
 * wait for it would miss the session).
 */
import { InsertQueryNode, type KyselyPlugin, type PluginTransformQueryArgs, type PluginTransformResultArgs, type QueryId, type RootOperationNode } from 'kysely';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyHandler } from '../../src/core/context.js';
import type { Catalogue } from '../../src/core/catalogue.js';
import type { EventName, HandlerContext } from '../../src/core/context.js';
import { shippedCatalogue } from '../../src/server/shipped.js';
import type { Db } from '../../src/store/schema.js';
import { newId } from '../../src/store/secrets.js';
import { withHandlers } from '../helpers/catalogue.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery';

/** Where a paused login stops: after the first query it makes, or after it writes its session. */
type PausePoint = (node: RootOperationNode, index: number) => boolean;
const afterReadingTheUser: PausePoint = (_node, index) => index === 0;
const afterWritingTheSession: PausePoint = (node) => InsertQueryNode.is(node) && node.into?.table.identifier.name === 'auth_sessions';

/** A store plugin that holds a query's result back, at the pause point, until `release` is called. */
class Pause implements KyselyPlugin {
  readonly #nodes = new WeakMap<QueryId, RootOperationNode>();
  #count = 0;
  #paused = false;
  #reached!: () => void;
  readonly reached = new Promise<void>((resolve) => (this.#reached = resolve));
  release!: () => void;
  readonly #released = new Promise<void>((resolve) => (this.release = resolve));

  constructor(readonly at: PausePoint) {}

  transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
    if (!this.#paused && this.at(node, this.#count++)) this.#nodes.set(queryId, node);
    return node;
  }

  async transformResult({ result, queryId }: PluginTransformResultArgs) {
    if (this.#nodes.has(queryId) && !this.#paused) {
      this.#paused = true;
      this.#reached();
      await this.#released;
    }
    return result;
  }
}

/** The shipped catalogue, with a login that runs through the next pause the test sets, if any. */
function pausingCatalogue(nextPause: () => Pause | undefined): Catalogue {
  return withHandlers(shippedCatalogue(), 'auth', (auth) => {
    const login = auth.login!;
    const paused: AnyHandler = (payload, ctx) => {
      const pause = nextPause();
      return login(payload, pause ? withDb(ctx, ctx.db.withPlugin(pause)) : ctx);
    };
    return { ...auth, login: paused };
  });
}

/** The call's context with another view of its store (the context keeps its state in private fields). */
function withDb(ctx: HandlerContext<EventName>, db: Db): HandlerContext<EventName> {
  return new Proxy(ctx, {
    get(target, name) {
      if (name === 'db') return db;
      const value = Reflect.get(target, name, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe.each([
  { name: 'SQLite', postgres: false },
  { name: 'PostgreSQL', postgres: true },
])('a login racing disableUser on $name', ({ postgres }) => {
  let server: TestServer;
  let pause: Pause | undefined;
  beforeAll(async () => {
    server = await startServer({ postgres, catalogue: pausingCatalogue(() => pause) });
  });
  afterAll(() => server?.close());

  const call = (entity: string, action: string, payload: unknown) => server.post({ face: 'auth', action, payload }, { headers: { 'x-entity-id': entity } });
  const openSessions = async (userId: string) =>
    (await server.db.selectFrom('auth_sessions').select('id').where('user_id', '=', userId).where('ended_at', 'is', null).execute()).length;

  /** Signs a user up, then starts its login paused at `at`; answers once the login has stopped there. */
  async function pausedLogin(at: PausePoint) {
    const entity = newId('ent');
    const signup = await call(entity, 'signup', { email: 'racer@example.com', password: PASSWORD });
    expect(signup.status).toBe(200);
    pause = new Pause(at);
    const login = call(entity, 'login', { email: 'racer@example.com', password: PASSWORD });
    const stopped = pause;
    await stopped.reached;
    pause = undefined;
    return { entity, userId: signup.body.data.user.id as string, login, release: () => stopped.release() };
  }

  it('answers user_disabled to a login that read the user before a disable that committed before its password was checked', async () => {
    const { entity, userId, login, release } = await pausedLogin(afterReadingTheUser);
    const disabled = await call(entity, 'disableUser', { id: userId });
    expect(disabled.status).toBe(200);
    release();
    const answered = await login;
    expect([answered.status, answered.body.error?.code]).toEqual([401, 'user_disabled']);

    expect((await call(entity, 'enableUser', { id: userId })).status).toBe(200);
    expect(await openSessions(userId)).toBe(0);
    // Enabled again, it logs in anew.
    expect((await call(entity, 'login', { email: 'racer@example.com', password: PASSWORD })).status).toBe(200);
  });

  it.skipIf(!postgres)('ends the session of a login whose transaction was still open while the disable ran', async () => {
    const { entity, userId, login, release } = await pausedLogin(afterWritingTheSession);
    const disabling = call(entity, 'disableUser', { id: userId });
    // The disable either finishes (it did not see the session) or waits for the login's transaction.
    let disableDone = false;
    void disabling.then(() => (disableDone = true));
    const waitingOnALock = async () => {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(server.db);
      return rows[0]!.n > 0;
    };
    while (!disableDone && !(await waitingOnALock())) await new Promise((resolve) => setImmediate(resolve));
    release();
    const [answered, disabled] = await Promise.all([login, disabling]);
    expect(disabled.status).toBe(200);
    expect(answered.status).toBe(200);

    expect((await call(entity, 'enableUser', { id: userId })).status).toBe(200);
    const session = await call(entity, 'session', { token: answered.body.data.token });
    expect([session.status, session.body.error?.code]).toEqual([401, 'session_invalid']);
    expect(await openSessions(userId)).toBe(0);
  });
});
