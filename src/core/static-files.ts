/**
 * Files the server serves as they are (the dashboard's and the API reference's pages and their libraries):
 * each read once, on its first request, and answered with an ETag (304 when the browser has it already) and
 * the security headers of its page.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyReply, FastifyRequest } from 'fastify';

const require = createRequire(import.meta.url);

/** A page's own files change with the server, so browsers revalidate them (cheap: a 304). */
export const REVALIDATE = 'no-cache';
/** A library changes only with its package version. */
const LIBRARY = 'public, max-age=86400';

export interface Asset {
  /** Where the file is, resolved on first use. */
  path: () => string;
  type: string;
  cacheControl: string;
}

/** A file of a package in node_modules. */
export const library = (specifier: string, type: string): Asset => ({ path: () => require.resolve(specifier), type, cacheControl: LIBRARY });

export const JS = 'text/javascript; charset=utf-8';
export const CSS = 'text/css; charset=utf-8';
export const HTML = 'text/html; charset=utf-8';

interface Loaded {
  body: Buffer;
  etag: string;
}

/** Files already read, by path: they are small and fixed for the life of the process. */
const loaded = new Map<string, Loaded>();

function load(asset: Asset): Loaded {
  const path = asset.path();
  let file = loaded.get(path);
  if (!file) {
    const body = readFileSync(path);
    file = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    loaded.set(path, file);
  }
  return file;
}

export function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset, headers: Record<string, string>) {
  const file = load(asset);
  reply.headers({ ...headers, 'Cache-Control': asset.cacheControl, ETag: file.etag });
  const seen = request.headers['if-none-match'];
  if (seen !== undefined && seen.split(',').some((tag) => tag.trim().replace(/^W\//, '') === file.etag)) return reply.code(304).send();
  return reply.type(asset.type).send(file.body);
}
