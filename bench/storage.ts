/**
 * The storage section: `storage.put` of 64 KiB of inline content per call, on the files store under the data
 * directory, beside the pipeline row (bench/beside-pipeline.ts). Every call puts the same bytes under the same
 * key, so each is what a put costs when its content is already stored: decoding the base64, writing and
 * flushing (fsync) a temporary file while hashing it, and in one transaction the partition's stored bytes,
 * the content's reference, the replaced object and the event.
 */
import { randomBytes } from 'node:crypto';
import { besidePipeline } from './beside-pipeline.js';

const CONTENT = randomBytes(64 * 1024);

const put = { face: 'storage', action: 'put', payload: { key: 'bench/64k.bin', content: CONTENT.toString('base64'), contentType: 'application/octet-stream' } };

export const storage = () =>
  besidePipeline({
    section: 'storage',
    title: 'Storage: POST /do storage.put (64 KiB inline, files store)',
    unit: 'puts',
    call: put,
    check: (status, body) => {
      const object = body.data as { size?: number } | undefined;
      if (status === 200 && object?.size === CONTENT.length) return undefined;
      return `a sample call answered ${status} with ${object?.size ?? 'no'} bytes stored, not ${CONTENT.length}.`;
    },
  });
