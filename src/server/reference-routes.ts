/**
 * `GET /docs`: the API reference, rendered in the browser by Redoc from this server's `GET /openapi.json`
 * (every action with its schemas, examples, errors and its curl and TypeScript samples). The page and its
 * script are read from the package's `src/reference/`, Redoc's standalone bundle from node_modules: no build
 * step and no third-party host. The markdown pages stay under `/docs/<page>.md`.
 */
import type { FastifyInstance } from 'fastify';
import { fromRoot } from '../package-root.js';
import { HTML, JS, library, REVALIDATE, sendAsset, type Asset } from '../core/static-files.js';

const own = (name: string, type: string): Asset => ({ path: () => fromRoot('src', 'reference', name), type, cacheControl: REVALIDATE });

const PAGE = own('index.html', HTML);
const ASSETS: Record<string, Asset> = {
  'reference.js': own('reference.js', JS),
  'redoc.standalone.js': library('redoc/bundles/redoc.standalone.js', JS),
};

/**
 * This origin only, as the dashboard's; Redoc styles its page with inline style elements and searches in a
 * worker it starts from a blob: URL, which the policy allows and nothing else.
 */
const SECURITY_HEADERS = {
  'Content-Security-Policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    'worker-src blob:',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

export function registerReferenceRoutes(app: FastifyInstance): void {
  app.get('/docs', (request, reply) => sendAsset(request, reply, PAGE, SECURITY_HEADERS));
  for (const [name, asset] of Object.entries(ASSETS)) app.get(`/docs/${name}`, (request, reply) => sendAsset(request, reply, asset, SECURITY_HEADERS));
}
