/**
 * Files the server serves as they are (the dashboard's and the API reference's pages and their libraries):
 * each read once, on its first request, and answered compressed as the browser accepts, with an ETag (304
 * when the browser has it already) and the security headers of its page (fixed-body.ts).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { fixedBody, sendFixed, type FixedBody } from './fixed-body.js';

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
  /** What the server changes in the file's text before serving it, if anything. */
  edit?: (text: string) => string;
}

/** A file of a package in node_modules. */
export const library = (specifier: string, type: string): Asset => ({ path: () => require.resolve(specifier), type, cacheControl: LIBRARY });

export const JS = 'text/javascript; charset=utf-8';
export const CSS = 'text/css; charset=utf-8';
export const HTML = 'text/html; charset=utf-8';

/** Files already read, by path: they are fixed for the life of the process. */
const loaded = new Map<string, FixedBody>();

function load(asset: Asset): FixedBody {
  const path = asset.path();
  let file = loaded.get(path);
  if (!file) {
    const bytes = readFileSync(path);
    file = fixedBody(asset.edit ? asset.edit(bytes.toString('utf8')) : bytes);
    loaded.set(path, file);
  }
  return file;
}

export function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset, headers: Record<string, string>) {
  return sendFixed(request, reply, load(asset), { type: asset.type, cacheControl: asset.cacheControl, headers });
}
