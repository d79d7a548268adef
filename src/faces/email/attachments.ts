/**
 * A queued message's attachments outlive the storage objects they came from: the message holds each one's
 * content (a reference on its blob, as an object does) from when it is queued until it leaves the queue,
 * sent or bounced, so that deleting the object meanwhile cannot make the blob collectable. Their bytes are
 * read when the message is sent.
 */
import type { StorageService } from '../storage/service.js';
import type { Db } from '../../store/schema.js';
import type { EmailMessageTable } from './tables.js';

/** An attachment as the message keeps it: the storage object's content, held by its SHA-256 until sent. */
export interface KeptAttachment {
  key: string;
  filename: string;
  contentType: string;
  size: number;
  sha256: string;
  md5: string;
}

const keptOf = (row: EmailMessageTable) => (row.attachments !== null ? (JSON.parse(row.attachments) as KeptAttachment[]) : []);

export async function holdAttachments(db: Db, row: EmailMessageTable, storage: StorageService | undefined): Promise<void> {
  for (const a of keptOf(row)) await storage!.hold(db, { sha256: a.sha256, md5: a.md5, size: a.size });
}

export async function releaseAttachments(db: Db, row: EmailMessageTable, storage: StorageService | undefined): Promise<void> {
  const kept = keptOf(row);
  if (kept.length > 0 && !storage) throw new Error('A message with attachments leaves the queue, but this process serves no storage to let their content go.');
  for (const a of kept) await storage!.release(db, a.sha256);
}

/** The attachments with their bytes, for sending. */
export async function attachmentContents(storage: StorageService | undefined, row: EmailMessageTable): Promise<{ filename: string; contentType: string; content: Buffer }[]> {
  const kept = keptOf(row);
  if (kept.length === 0) return [];
  if (!storage) throw new Error('A message with attachments, but no storage on this server to read them from.');
  return Promise.all(kept.map(async (a) => ({ filename: a.filename, contentType: a.contentType, content: await storage.blobs.read(a.sha256) })));
}
