/**
 * The storage settings read from the environment: files under the data directory by default, a bucket when
 * S3_BUCKET is set, and start-up errors that name the variable.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/settings.js';
import { storageSettings } from '../../src/faces/storage/settings.js';

describe('storage settings from the environment', () => {
  it('keeps files under the data directory by default', () => {
    expect(storageSettings({ DATA_DIR: '/srv/data' })).toEqual({ dir: '/srv/data/storage', worker: { pollMs: 1000, gcGraceMs: 3_600_000 } });
    expect(storageSettings({ STORAGE_DIR: '/mnt/shared', PUBLIC_URL: 'https://api.example.com/', STORAGE_POLL_MS: '200', STORAGE_GC_GRACE_SECONDS: '60', DATA_DIR: '/srv/data' })).toEqual({
      dir: '/mnt/shared',
      publicUrl: 'https://api.example.com',
      worker: { pollMs: 200, gcGraceMs: 60_000 },
    });
  });

  it('uses a bucket when S3_BUCKET is set', () => {
    const env = { S3_BUCKET: 'files', S3_ENDPOINT: 'http://127.0.0.1:9000', S3_ACCESS_KEY_ID: 'id', S3_SECRET_ACCESS_KEY: 'secret', S3_FORCE_PATH_STYLE: 'true', S3_PREFIX: 'dispatch' };
    expect(storageSettings(env).s3).toEqual({
      bucket: 'files',
      endpoint: 'http://127.0.0.1:9000',
      region: 'us-east-1',
      accessKeyId: 'id',
      secretAccessKey: 'secret',
      forcePathStyle: true,
      prefix: 'dispatch/',
    });
    expect(storageSettings({ S3_BUCKET: 'files', S3_REGION: 'eu-west-1' }).s3).toEqual({ bucket: 'files', region: 'eu-west-1', forcePathStyle: false, prefix: '' });
  });

  it('refuses settings that cannot work, naming the variable', () => {
    expect(() => storageSettings({ S3_ENDPOINT: 'http://127.0.0.1:9000' })).toThrow(/S3_BUCKET/);
    expect(() => storageSettings({ S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'id' })).toThrow(/S3_SECRET_ACCESS_KEY/);
    expect(() => storageSettings({ S3_BUCKET: 'b', S3_ENDPOINT: 'minio:9000' })).toThrow(/S3_ENDPOINT/);
    expect(() => storageSettings({ S3_BUCKET: 'b', S3_FORCE_PATH_STYLE: 'yes' })).toThrow(/S3_FORCE_PATH_STYLE/);
    expect(() => storageSettings({ PUBLIC_URL: 'api.example.com' })).toThrow(/PUBLIC_URL/);
    expect(() => storageSettings({ STORAGE_POLL_MS: 'soon' })).toThrow(/STORAGE_POLL_MS/);
    // One line at start-up, as every module's settings fail.
    for (const env of [{ S3_ENDPOINT: 'http://127.0.0.1:9000' }, { S3_BUCKET: 'b', S3_ENDPOINT: 'minio:9000' }, { PUBLIC_URL: 'api.example.com' }]) expect(() => storageSettings(env)).toThrow(ConfigError);
  });
});
