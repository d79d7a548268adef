/**
 * Taking in a signed upload once its bytes are staged (received by this server, or landed in S3): in one
 * transaction, the upload row is taken (so only one process completes it), its size checked against what
 * was signed and the tier's limits, the object stored and `storage.object.created` written to the outbox.
 */
import { ApiError } from '../../core/errors.js';
import { writeEvents } from '../../store/events.js';
import type { Db } from '../../store/schema.js';
import type { StorageObjectTable } from './tables.js';
import { newId } from '../../store/secrets.js';
import { takeUpload } from './store.js';
import { CallTransaction } from '../../store/transaction.js';
import type { StagedBlob } from './blob-store.js';
import { checkObjectSize, storeObject } from './objects.js';
import type { StorageService } from './service.js';
import { toObject } from './wire.js';

/**
 * Completes upload `id` with `staged`; the caller discards what staging left either way.
 * @throws ApiError signed_url_invalid when it was completed already or has expired, upload_incomplete or
 *   payload_too_large when the size differs from the one signed, quota_exceeded past the tier's quota.
 */
export async function completeUpload(db: Db, storage: StorageService, id: string, staged: StagedBlob): Promise<StorageObjectTable> {
  // A call's kind of transaction (its first statement writes), so that content placed before a rollback is
  // still collected (afterRollback in storeObject).
  const tx = new CallTransaction(db);
  try {
    const row = await complete(tx.db, storage, id, staged);
    await tx.commit();
    return row;
  } catch (error) {
    await tx.rollback();
    throw error;
  }
}

async function complete(trx: Db, storage: StorageService, id: string, staged: StagedBlob): Promise<StorageObjectTable> {
  const upload = await takeUpload(trx, id);
  if (!upload) throw new ApiError('signed_url_invalid', 'This upload URL was used already.');
  const size = Number(upload.size);
  if (staged.size < size) throw new ApiError('upload_incomplete', `The upload sent ${staged.size} bytes of the ${size} signed for.`, { details: { size, received: staged.size } });
  if (staged.size > size) throw new ApiError('payload_too_large', `The upload sent more than the ${size} bytes signed for.`, { details: { limit: size } });
  const limits = storage.limits(upload.tier);
  checkObjectSize(size, limits);
  const p = { mode: upload.mode, entityId: upload.entity_id };
  const { row } = await storeObject(trx, storage.blobs, p, { key: upload.key, contentType: upload.content_type, metadata: JSON.parse(upload.metadata) as Record<string, string>, staged }, limits);
  await writeEvents(trx, { ...p, apiVersion: upload.api_version, requestId: newId('req') }, [{ id: newId('evt'), type: 'storage.object.created', data: toObject(row) }]);
  return row;
}
