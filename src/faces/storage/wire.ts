/** Stored rows as the storage face answers them. */
import type { StorageObject } from '../../../generated/server/types.js';
import type { StorageObjectTable } from './tables.js';

export function toObject(row: StorageObjectTable): StorageObject {
  return {
    key: row.key,
    size: Number(row.size),
    contentType: row.content_type,
    sha256: row.sha256,
    etag: `"${row.md5}"`,
    metadata: JSON.parse(row.metadata) as Record<string, string>,
    createdAt: row.created_at,
  };
}
