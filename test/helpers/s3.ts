/**
 * A local S3-compatible server for tests (s3rver, in this process, on a free port of 127.0.0.1, keeping its
 * objects in a temporary directory), and the storage settings that point the server at one of its buckets.
 * s3rver checks a presigned URL's expiry but not its SigV4 signature: tests of altered URLs run against the
 * files store (and real S3) only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { S3Settings } from '../../src/faces/storage/s3-blobs.js';

const require = createRequire(import.meta.url);

interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;

export interface LocalS3 {
  settings: S3Settings;
  close(): Promise<void>;
}

export async function startLocalS3(bucket = 'dispatch'): Promise<LocalS3> {
  const directory = mkdtempSync(join(tmpdir(), 'dispatch-s3-'));
  // s3rver is CommonJS without type declarations.
  const S3rver = require('s3rver') as S3rverClass;
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  return {
    settings: {
      bucket,
      endpoint: `http://127.0.0.1:${port}`,
      region: 'us-east-1',
      // s3rver's own account.
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      forcePathStyle: true,
      prefix: 'dispatch/',
    },
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
