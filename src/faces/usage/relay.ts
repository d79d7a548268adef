/**
 * `usage.live` across processes sharing PostgreSQL: each flush announces the packs of records it wrote
 * (store/usage-record-packs.ts), by partition and newest id, with `pg_notify` inside its own transaction, so
 * the notice is delivered when, and only if, the records commit. A process listens only while its feed has
 * followers, on a connection of its own (not one of the calls' pool); it reads the packs other processes
 * announced and hands their records to its feed, beside those it wrote itself. A lost connection is opened
 * again, with back-off, for as long as someone follows.
 */
import type pg from 'pg';
import type { Db, Mode, UsageRecordPackTable } from '../../store/schema.js';
import { newId } from '../../store/secrets.js';
import { unpack } from '../../store/usage-record-packs.js';
import type { UsageFeed } from './feed.js';
import { log } from '../../core/log.js';

/** The channel of the notices (`pg_notify`). */
export const USAGE_CHANNEL = 'dispatch_usage';
/**
 * Packs per notice: a pack's key is at most about 110 bytes of JSON (an entity id is at most 64 ASCII
 * characters, stages/entity.ts), so 60 stay well under PostgreSQL's 8000-byte payload limit.
 */
const PACKS_PER_NOTICE = 60;
const MAX_RETRY_MS = 10_000;

/** A pack as a notice names it: its partition and its newest record's id, which no other pack has. */
type PackKey = [mode: string, entityId: string, lastId: string];

interface Notice {
  /** The process that wrote the records. */
  origin: string;
  packs: PackKey[];
}

/** What a notice names a pack by. */
type PackNamed = Pick<UsageRecordPackTable, 'mode' | 'entity_id' | 'last_id'>;

/** The notices of `origin` that name `packs`, as many as it takes for each to stay under PostgreSQL's payload limit. */
export function packNotices(origin: string, packs: readonly PackNamed[]): string[] {
  const notices: string[] = [];
  for (let i = 0; i < packs.length; i += PACKS_PER_NOTICE) {
    const keys = packs.slice(i, i + PACKS_PER_NOTICE).map(({ mode, entity_id, last_id }): PackKey => [mode, entity_id, last_id]);
    notices.push(JSON.stringify({ origin, packs: keys } satisfies Notice));
  }
  return notices;
}

export class UsageRelay {
  /** This process, as its notices name it. */
  readonly origin = newId('proc');
  readonly #db: Db;
  readonly #connection: pg.ClientConfig;
  readonly #feed: UsageFeed;
  /** The listening connection, while there are followers. */
  #client: pg.Client | undefined;
  #retry: NodeJS.Timeout | undefined;
  #retryMs = 250;

  constructor(db: Db, pool: pg.Pool, feed: UsageFeed) {
    this.#db = db;
    this.#connection = pool.options;
    this.#feed = feed;
    feed.onFollowed = (followed) => (followed ? void this.#listen() : this.#stop());
  }

  /** The notices that announce a flush's packs, for its transaction to send on USAGE_CHANNEL. */
  notices(packs: readonly PackNamed[]): string[] {
    return packNotices(this.origin, packs);
  }

  close(): void {
    this.#feed.onFollowed = undefined;
    this.#stop();
  }

  async #listen(): Promise<void> {
    if (this.#client || !this.#feed.followed) return;
    clearTimeout(this.#retry);
    // Loaded here so that only a server on PostgreSQL loads its client (openStore already has, by now).
    const { default: pg } = await import('pg');
    // Another listen may have started, or the last follower left, while the import settled.
    if (this.#client || !this.#feed.followed) return;
    const client = new pg.Client(this.#connection);
    this.#client = client;
    client.on('notification', (message) => void this.#received(message.payload));
    client.on('error', (error) => this.#lost(client, error));
    client.on('end', () => this.#lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${USAGE_CHANNEL}`);
      this.#retryMs = 250;
    } catch (error) {
      this.#lost(client, error as Error);
    }
  }

  /** The connection failed or ended: listen again later if someone still follows. */
  #lost(client: pg.Client, error?: Error): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    client.end().catch(() => undefined);
    if (!this.#feed.followed) return;
    log.error({ ...(error ? { detail: error.message } : {}), retryMs: this.#retryMs }, 'usage: the live relay lost its connection; listening again');
    this.#retry = setTimeout(() => void this.#listen(), this.#retryMs).unref();
    this.#retryMs = Math.min(this.#retryMs * 2, MAX_RETRY_MS);
  }

  #stop(): void {
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    client?.end().catch(() => undefined);
  }

  async #received(payload: string | undefined): Promise<void> {
    if (!payload || !this.#feed.followed) return;
    try {
      const notice = JSON.parse(payload) as Partial<Notice>;
      if (notice.origin === this.origin || !Array.isArray(notice.packs) || notice.packs.length === 0) return;
      const keys = notice.packs.map((key) => key.map(String));
      const packs = await this.#db
        .selectFrom('usage_record_packs')
        .select(['mode', 'entity_id', 'records'])
        .where((eb) => eb.or(keys.map(([mode, entity, last]) => eb.and([eb('mode', '=', mode as Mode), eb('entity_id', '=', entity!), eb('last_id', '=', last!)]))))
        .execute();
      const rows = packs.flatMap(unpack);
      if (rows.length) this.#feed.publish(rows);
    } catch (error) {
      log.error({ detail: (error as Error).message }, 'usage: an announced flush could not be read');
    }
  }
}
