/**
 * Status only moves forward (docs/contract.md § E-mail): `queued → sent → delivered`, `deferred` while the server asks to
 * try later, or it ends `bounced` or `complained`; `suppressed` is decided before anything is sent. Each move
 * is a conditional UPDATE from the statuses that may precede the new one, appends to the message's history,
 * sends the status's event and, for a bounce or a complaint, suppresses the addresses it names.
 */
import type { Partition } from '../../store/partition.js';
import { moveMessage, suppress } from './store.js';
import type { Db } from '../../store/schema.js';
import type { EmailMessageTable, EmailStatus } from './tables.js';
import type { StorageService } from '../storage/service.js';
import { releaseAttachments } from './attachments.js';
import { toMessage } from './wire.js';

/** The statuses each one may follow. */
const FOLLOWS: Record<EmailStatus, readonly EmailStatus[]> = {
  queued: [],
  suppressed: ['queued', 'deferred'],
  deferred: ['queued', 'deferred'],
  sent: ['queued', 'deferred'],
  delivered: ['sent'],
  bounced: ['queued', 'deferred', 'sent'],
  complained: ['sent', 'delivered'],
};

export type EmailEvent = 'email.message.sent' | 'email.message.delivered' | 'email.message.bounced' | 'email.message.complained';
const EVENTS: Partial<Record<EmailStatus, EmailEvent>> = {
  sent: 'email.message.sent',
  delivered: 'email.message.delivered',
  bounced: 'email.message.bounced',
  complained: 'email.message.complained',
};

export interface HistoryEntry {
  status: EmailStatus;
  at: string;
  detail?: string;
}

export interface Move {
  status: EmailStatus;
  detail?: string;
  /** Other changes made with it (attempts, the next attempt, the last error, the lease ended). */
  changes?: Partial<EmailMessageTable>;
  /** A bounce or complaint: the addresses to suppress. */
  suppress?: readonly string[];
}

/** A history with `move` appended, as JSON. */
export function withEntry(history: string, entry: HistoryEntry): string {
  return JSON.stringify([...(JSON.parse(history) as HistoryEntry[]), entry]);
}

/**
 * The moves of a message not yet stored (a test-mode capture), made in memory: the row as it ends, to be
 * inserted once, and each event with the message as it stood then. The same rules as `advance`.
 */
export function movedInMemory(row: EmailMessageTable, moves: readonly Move[]): { row: EmailMessageTable; events: [EmailEvent, unknown][] } {
  const events: [EmailEvent, unknown][] = [];
  let current = row;
  for (const move of moves) {
    if (!FOLLOWS[move.status].includes(current.status)) throw new Error(`A message cannot move from ${current.status} to ${move.status}.`);
    const entry: HistoryEntry = { status: move.status, at: new Date().toISOString(), ...(move.detail ? { detail: move.detail } : {}) };
    current = { ...current, ...move.changes, status: move.status, history: withEntry(current.history, entry), updated_at: entry.at };
    const event = EVENTS[move.status];
    if (event) events.push([event, toMessage(current)]);
  }
  return { row: current, events };
}

/** Puts the addresses a bounce or a complaint names on the message's partition's suppression list. */
export async function suppressFor(db: Db, row: EmailMessageTable, move: Move): Promise<void> {
  if (!move.suppress?.length) return;
  const reason = move.status === 'complained' ? 'complaint' : 'bounce';
  const at = new Date().toISOString();
  await suppress(db, move.suppress.map((address) => ({ mode: row.mode, entity_id: row.entity_id, address, reason, message_id: row.id, created_at: at })));
}

/**
 * Moves `row` on in the store, by the rules of `movedInMemory`; answers the row as moved, or undefined when it
 * is no longer in a status the move may follow (or, with `leasedUntil`, no longer under that lease). Run in a
 * transaction with the events `emit` writes.
 */
export async function advance(
  db: Db,
  row: EmailMessageTable,
  move: Move,
  emit: (type: EmailEvent, data: unknown) => void,
  storage: StorageService | undefined,
  leasedUntil?: string,
): Promise<EmailMessageTable | undefined> {
  if (!FOLLOWS[move.status].includes(row.status)) return undefined;
  const { row: moved, events } = movedInMemory(row, [move]);
  const p: Partition = { mode: row.mode, entityId: row.entity_id };
  if (!(await moveMessage(db, p, row.id, FOLLOWS[move.status], { status: moved.status, history: moved.history, ...move.changes }, leasedUntil))) return undefined;
  // Leaving the queue: the content its attachments held is the objects' (or the collector's) again.
  if ((row.status === 'queued' || row.status === 'deferred') && ['sent', 'bounced', 'suppressed'].includes(move.status)) await releaseAttachments(db, row, storage);
  await suppressFor(db, row, move);
  for (const [type, data] of events) emit(type, data);
  return moved;
}
