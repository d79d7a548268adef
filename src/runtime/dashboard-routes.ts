/**
 * `GET /dashboard` (API.md §18): the usage dashboard, one page of plain modules that calls `POST /do` like
 * any client. Its files are read from the package's `src/dashboard/` (the same files whether the server
 * runs through tsx or from `dist/`), and the chart library (uPlot) from node_modules, so that no build step
 * and no third-party host is involved. Only the files listed here are served; each is read once, on its
 * first request, and answered with an ETag (304 when the browser has it already). The page runs under a
 * Content-Security-Policy that allows scripts, styles and connections to this origin only.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fromRoot } from '../package-root.js';
import { ApiError } from './errors.js';

const require = createRequire(import.meta.url);

/** The page's own files change with the server, so browsers revalidate them (cheap: a 304). */
const REVALIDATE = 'no-cache';
/** The chart library changes only with its package version. */
const LIBRARY = 'public, max-age=86400';

interface Asset {
  /** Where the file is, resolved on first use. */
  path: () => string;
  type: string;
  cacheControl: string;
}

const own = (name: string, type: string): Asset => ({ path: () => fromRoot('src', 'dashboard', name), type, cacheControl: REVALIDATE });
const library = (specifier: string, type: string): Asset => ({ path: () => require.resolve(specifier), type, cacheControl: LIBRARY });

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/** Everything `/dashboard/<name>` serves; any other name is a 404. */
const ASSETS: Record<string, Asset> = {
  'app.js': own('app.js', JS),
  'api.js': own('api.js', JS),
  'breakdowns.js': own('breakdowns.js', JS),
  'charts.js': own('charts.js', JS),
  'connect.js': own('connect.js', JS),
  'dom.js': own('dom.js', JS),
  'format.js': own('format.js', JS),
  'live.js': own('live.js', JS),
  'numbers.js': own('numbers.js', JS),
  'reads.js': own('reads.js', JS),
  'session.js': own('session.js', JS),
  'view.js': own('view.js', JS),
  'style.css': own('style.css', CSS),
  'favicon.svg': own('favicon.svg', 'image/svg+xml'),
  'uPlot.esm.js': library('uplot/dist/uPlot.esm.js', JS),
  'uPlot.min.css': library('uplot/dist/uPlot.min.css', CSS),
};
const PAGE = own('index.html', 'text/html; charset=utf-8');

/** Scripts, styles, images and calls from this origin only; no inline script, no framing, no form posts. */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'Content-Security-Policy': DASHBOARD_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

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

function send(request: FastifyRequest, reply: FastifyReply, asset: Asset) {
  const file = load(asset);
  reply.headers({ ...SECURITY_HEADERS, 'Cache-Control': asset.cacheControl, ETag: file.etag });
  const seen = request.headers['if-none-match'];
  if (seen !== undefined && seen.split(',').some((tag) => tag.trim().replace(/^W\//, '') === file.etag)) return reply.code(304).send();
  return reply.type(asset.type).send(file.body);
}

export function registerDashboardRoutes(app: FastifyInstance): void {
  app.get('/dashboard', (request, reply) => send(request, reply, PAGE));
  app.get<{ Params: { asset: string } }>('/dashboard/:asset', (request, reply) => {
    const name = request.params.asset;
    if (name === '') return reply.redirect('../dashboard', 301);
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!asset) throw new ApiError('route_not_found', `No dashboard file ${JSON.stringify(name)}.`);
    return send(request, reply, asset);
  });
}
