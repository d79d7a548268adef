/**
 * The `storage` face (docs/contract.md § Storage): objects under keys in the call's (mode, entity), content inline or
 * through signed URLs, per-tier limits. Storing and deleting live in src/faces/storage/objects.ts, the content in
 * the configured blob store (files or S3), the signed URLs' receiving end in src/faces/storage/routes.ts.
 * Keys and prefixes are taken in Unicode NFC (src/faces/storage/keys.ts).
 */
import type { StorageHandlers } from '../../../generated/server/types.js';
import type { HandlerContext } from '../../core/context.js';
import { ApiError } from '../../core/errors.js';
import { getObject, insertUpload, listObjects, storedBytes } from './store.js';
import { newId } from '../../store/secrets.js';
import { keyPrefix, objectKey } from './keys.js';
import { INLINE_MAX_BYTES } from './limits.js';
import { checkObjectSize, quotaExceeded, removeObject, storeObject } from './objects.js';
import type { StorageService } from './service.js';
import { toObject } from './wire.js';

const DEFAULT_TYPE = 'application/octet-stream';
const DEFAULT_EXPIRY_SECONDS = 3600;

const partition = (ctx: HandlerContext<never>) => ({ mode: ctx.mode, entityId: ctx.entityId });

function storageOf(ctx: HandlerContext<never>): StorageService {
  const storage = ctx.service<StorageService>('storage');
  if (!storage) throw new ApiError('provider_unavailable', 'Storage is not configured on this server.');
  return storage;
}

/** When a URL valid for `seconds` expires, on a whole second (signed URLs count in seconds). */
const expiryAfter = (seconds: number) => new Date(Math.floor(Date.now() / 1000 + seconds) * 1000);

const notFound = (key: string) => new ApiError('resource_not_found', `No object under the key ${JSON.stringify(key)}.`, { param: '/payload/key' });

export const handlers: StorageHandlers = {
  async put(payload, ctx) {
    const service = storageOf(ctx);
    const bytes = Buffer.from(payload.content, 'base64');
    // Node's decoder skips what is not base64; encoding back tells (a schema pattern over 700 000 characters
    // would cost ten times as much).
    if (bytes.toString('base64') !== payload.content) {
      const message = 'must be base64 (RFC 4648, with its padding)';
      throw new ApiError('payload_invalid', `/payload/content: ${message}`, { param: '/payload/content', details: { errors: [{ param: '/payload/content', message, keyword: 'contentEncoding' }] } });
    }
    if (bytes.length > INLINE_MAX_BYTES) {
      throw new ApiError('payload_too_large', `Inline content is at most ${INLINE_MAX_BYTES} bytes; use createUploadUrl for larger objects.`, {
        param: '/payload/content',
        details: { limit: INLINE_MAX_BYTES, size: bytes.length },
      });
    }
    const limits = service.limits(ctx.key.tier);
    checkObjectSize(bytes.length, limits, '/payload/content');
    const staged = await service.blobs.stageBytes(bytes);
    try {
      if (payload.sha256 !== undefined && payload.sha256.toLowerCase() !== staged.sha256) {
        throw new ApiError('checksum_mismatch', `The content's SHA-256 is ${staged.sha256}.`, { param: '/payload/sha256', details: { sha256: staged.sha256 } });
      }
      const object = { key: objectKey(payload.key, '/payload/key'), contentType: payload.contentType ?? DEFAULT_TYPE, metadata: payload.metadata ?? {}, staged };
      const { row, replaced } = await storeObject(ctx.db, service.blobs, partition(ctx), object, limits);
      ctx.reportUnits({ bytes: staged.size });
      const stored = toObject(row);
      ctx.emit('storage.object.created', stored);
      return stored;
    } finally {
      await service.blobs.discard(staged);
    }
  },

  async createUploadUrl(payload, ctx) {
    const service = storageOf(ctx);
    const limits = service.limits(ctx.key.tier);
    const key = objectKey(payload.key, '/payload/key');
    checkObjectSize(payload.size, limits, '/payload/size');
    // Checked again when the bytes arrive; refusing now spares sending them for nothing.
    const existing = await getObject(ctx.db, partition(ctx), key);
    const stored = await storedBytes(ctx.db, partition(ctx));
    if (stored - Number(existing?.size ?? 0) + payload.size > limits.storedBytes) throw quotaExceeded(limits, stored);
    const expiresAt = expiryAfter(payload.expiresIn ?? DEFAULT_EXPIRY_SECONDS);
    const contentType = payload.contentType ?? DEFAULT_TYPE;
    const id = newId('upl');
    await insertUpload(ctx.db, {
      id,
      mode: ctx.mode,
      entity_id: ctx.entityId,
      key,
      size: payload.size,
      content_type: contentType,
      metadata: JSON.stringify(payload.metadata ?? {}),
      tier: ctx.key.tier,
      api_version: ctx.apiVersion,
      expires_at: expiresAt.toISOString(),
      created_at: new Date().toISOString(),
    });
    const target = await service.blobs.uploadTarget({ id, size: payload.size, contentType, expiresAt });
    ctx.reportUnits({ bytes: payload.size });
    return { key, ...target, expiresAt: expiresAt.toISOString() };
  },

  async get(payload, ctx) {
    const service = storageOf(ctx);
    const row = await getObject(ctx.db, partition(ctx), objectKey(payload.key, '/payload/key'));
    if (!row) throw notFound(payload.key);
    const object = toObject(row);
    if (payload.includeContent === false || object.size > INLINE_MAX_BYTES) return { object };
    return { object, content: (await service.blobs.read(row.sha256)).toString('base64') };
  },

  async createDownloadUrl(payload, ctx) {
    const service = storageOf(ctx);
    const row = await getObject(ctx.db, partition(ctx), objectKey(payload.key, '/payload/key'));
    if (!row) throw notFound(payload.key);
    const expiresAt = expiryAfter(payload.expiresIn ?? DEFAULT_EXPIRY_SECONDS);
    const target = await service.blobs.downloadTarget({
      mode: ctx.mode,
      entityId: ctx.entityId,
      key: row.key,
      sha256: row.sha256,
      contentType: row.content_type,
      expiresAt,
      ...(payload.filename ? { filename: payload.filename } : {}),
    });
    return { key: row.key, ...target, expiresAt: expiresAt.toISOString() };
  },

  async list(payload, ctx) {
    storageOf(ctx);
    const limit = payload.limit ?? 100;
    const rows = await listObjects(ctx.db, partition(ctx), {
      limit,
      ...(payload.prefix ? { prefix: keyPrefix(payload.prefix) } : {}),
      ...(payload.cursor !== undefined ? { cursor: objectKey(payload.cursor, '/payload/cursor') } : {}),
    });
    const items = rows.slice(0, limit).map(toObject);
    const hasMore = rows.length > limit;
    return { items, hasMore, ...(hasMore ? { nextCursor: items.at(-1)!.key } : {}) };
  },

  async delete(payload, ctx) {
    storageOf(ctx);
    const removed = await removeObject(ctx.db, partition(ctx), objectKey(payload.key, '/payload/key'));
    if (!removed) throw notFound(payload.key);
    ctx.emit('storage.object.deleted', toObject(removed));
    return { key: removed.key, deleted: true };
  },
};
