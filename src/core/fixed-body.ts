/**
 * A response body that stays the same for the life of the process (a page, a library, the OpenAPI document),
 * sent as the request's Accept-Encoding allows: brotli or gzip, compressed once, on the first request that asks
 * for that encoding, and kept. Each encoding has its own strong ETag (their bytes differ), and a request whose
 * If-None-Match names the one it would get is answered 304 with no body.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

export type Coding = 'br' | 'gzip';

/** Brotli first where a client weighs both alike: it makes the smaller body. */
const CODINGS: readonly Coding[] = ['br', 'gzip'];

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);
/** Off the event loop, in libuv's pool: the 1 MB document takes tens of milliseconds. */
const COMPRESS: Record<Coding, (bytes: Buffer) => Promise<Buffer>> = {
  // Quality 9 comes within a tenth of brotli's best (11) at a thirtieth of its time.
  br: (bytes) => brotliAsync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
  gzip: (bytes) => gzipAsync(bytes, { level: 9 }),
};

/** The bytes sent for one encoding, and their ETag; `coding` is absent for the body as it is. */
export interface Encoded {
  bytes: Buffer;
  etag: string;
  coding?: Coding;
}

export interface FixedBody {
  /** The body in `coding` (compressed on first use), or as it is when no coding is asked or compressing does not make it smaller. */
  encoded(coding: Coding | undefined): Promise<Encoded>;
}

export function fixedBody(content: Buffer | string): FixedBody {
  const bytes = typeof content === 'string' ? Buffer.from(content) : content;
  const hash = createHash('sha256').update(bytes).digest('base64url').slice(0, 27);
  const plain: Encoded = { bytes, etag: `"${hash}"` };
  const compressed = new Map<Coding, Promise<Encoded>>();
  return {
    encoded(coding) {
      if (!coding) return Promise.resolve(plain);
      let made = compressed.get(coding);
      if (!made) {
        made = COMPRESS[coding](bytes).then((smaller): Encoded => (smaller.length < bytes.length ? { bytes: smaller, etag: `"${hash}-${coding}"`, coding } : plain));
        compressed.set(coding, made);
        // A failed compression (memory pressure, say) fails this request only: the next one tries again.
        made.catch(() => compressed.delete(coding));
      }
      return made;
    },
  };
}

/**
 * The coding to send for an Accept-Encoding header (RFC 9110 § 12.5.3): the most wanted of brotli and gzip,
 * `*` standing for any coding not named, or none (the body as it is) when neither is acceptable or the
 * client weighs `identity` above both.
 */
export function chooseCoding(header: string | undefined): Coding | undefined {
  if (!header) return undefined;
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.split(';').map((piece) => piece.trim().toLowerCase());
    if (!name) continue;
    const q = params.find((param) => param.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    weights.set(name, Number.isFinite(weight) ? weight : 0);
  }
  const weightOf = (name: string) => weights.get(name) ?? weights.get('*') ?? 0;
  let best: Coding | undefined;
  for (const coding of CODINGS) if (weightOf(coding) > (best ? weightOf(best) : 0)) best = coding;
  const identity = weights.get('identity');
  return best && (identity === undefined || weightOf(best) >= identity) ? best : undefined;
}

/** Whether an If-None-Match header names `etag` (weak comparison, as RFC 9110 § 13.1.2 asks), or is `*`. */
function seen(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((tag) => {
    const name = tag.trim();
    return name === '*' || name.replace(/^W\//, '') === etag;
  });
}

export interface Representation {
  type: string;
  cacheControl: string;
  /** Headers sent with the answer and its 304 alike (a page's security headers; a `Vary` gains Accept-Encoding). */
  headers?: Record<string, string>;
}

export async function sendFixed(request: FastifyRequest, reply: FastifyReply, body: FixedBody, { type, cacheControl, headers = {} }: Representation) {
  const encoded = await body.encoded(chooseCoding(request.headers['accept-encoding']));
  const vary = headers.Vary ? `${headers.Vary}, Accept-Encoding` : 'Accept-Encoding';
  reply.headers({ ...headers, 'Cache-Control': cacheControl, ETag: encoded.etag, Vary: vary });
  if (seen(request.headers['if-none-match'], encoded.etag)) return reply.code(304).send();
  if (encoded.coding) reply.header('Content-Encoding', encoded.coding);
  return reply.type(type).send(encoded.bytes);
}
