/**
 * The storage module's settings from the environment: where content is kept (files under `STORAGE_DIR`, by
 * default `<DATA_DIR>/storage`; or the S3-compatible bucket `S3_BUCKET`), the address signed URLs of the
 * files store use (`PUBLIC_URL`), and the background work's timing. Bad settings fail at start-up, naming
 * the variable.
 */
import { join } from 'node:path';
import { ConfigError, httpUrlSetting, integer, publicUrl } from '../../core/settings.js';
import type { S3Settings } from './s3-blobs.js';
import { DEFAULT_STORAGE_WORKER, type StorageWorkerOptions } from './worker.js';

export interface StorageSettings {
  /** The files store's directory; unused with `s3`. */
  dir: string;
  s3?: S3Settings;
  /** Where clients reach this server, for the files store's signed URLs; the listening address when absent. */
  publicUrl?: string;
  worker: StorageWorkerOptions;
}

/** @throws ConfigError naming the variable when one is invalid. */
export function storageSettings(env: NodeJS.ProcessEnv): StorageSettings {
  const url = publicUrl(env);
  const s3 = s3FromEnv(env);
  return {
    // The data directory as the server reads it (DATA_DIR, or `--data-dir`, which sets it).
    dir: env.STORAGE_DIR?.trim() || join(env.DATA_DIR || '.data', 'storage'),
    ...(s3 ? { s3 } : {}),
    ...(url ? { publicUrl: url } : {}),
    worker: {
      pollMs: integer(env, 'STORAGE_POLL_MS', DEFAULT_STORAGE_WORKER.pollMs),
      gcGraceMs: integer(env, 'STORAGE_GC_GRACE_SECONDS', DEFAULT_STORAGE_WORKER.gcGraceMs / 1000) * 1000,
    },
  };
}

function s3FromEnv(env: NodeJS.ProcessEnv): S3Settings | undefined {
  const bucket = env.S3_BUCKET?.trim();
  if (!bucket) {
    if (env.S3_ENDPOINT?.trim()) throw new ConfigError('S3_ENDPOINT is set but S3_BUCKET is not: name the bucket to keep objects in.');
    return undefined;
  }
  const endpoint = httpUrlSetting(env, 'S3_ENDPOINT', 'https://s3.eu-west-1.amazonaws.com');
  const accessKeyId = env.S3_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY?.trim();
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) throw new ConfigError('Set both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or neither (to use the AWS SDK\'s default credentials).');
  const pathStyle = env.S3_FORCE_PATH_STYLE?.trim() ?? '';
  if (!['', '0', '1', 'true', 'false'].includes(pathStyle)) throw new ConfigError(`S3_FORCE_PATH_STYLE must be true or false, not "${pathStyle}".`);
  const prefix = env.S3_PREFIX?.trim() ?? '';
  return {
    bucket,
    region: env.S3_REGION?.trim() || 'us-east-1',
    forcePathStyle: pathStyle === '1' || pathStyle === 'true',
    prefix: prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`,
    ...(endpoint ? { endpoint } : {}),
    ...(accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : {}),
  };
}
