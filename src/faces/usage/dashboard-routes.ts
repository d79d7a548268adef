/**
 * `GET /dashboard` (docs/contract.md § Dashboard): the usage dashboard, one page of plain modules that calls `POST /do` like
 * any client. Its files are read from the package's `src/dashboard/` (the same files whether the server
 * runs through tsx or from `dist/`), and the chart library (uPlot) from node_modules, so that no build step
 * and no third-party host is involved. Only the files listed here are served (see static-files.ts). The page
 * runs under a Content-Security-Policy that allows scripts, styles and connections to this origin only.
 */
import type { FastifyInstance } from 'fastify';
import { fromRoot } from '../../package-root.js';
import { ApiError } from '../../core/errors.js';
import { CSS, HTML, JS, library, REVALIDATE, sendAsset, type Asset } from '../../core/static-files.js';

const own = (name: string, type: string): Asset => ({ path: () => fromRoot('src', 'dashboard', name), type, cacheControl: REVALIDATE });

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
const PAGE = own('index.html', HTML);

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

const send = (request: Parameters<typeof sendAsset>[0], reply: Parameters<typeof sendAsset>[1], asset: Asset) => sendAsset(request, reply, asset, SECURITY_HEADERS);

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
