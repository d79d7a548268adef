/**
 * `GET /docs`: the API reference, rendered in the browser by Redoc from this server's `GET /openapi.json`
 * (every action with its schemas, examples, errors and its curl and TypeScript samples), and the generated
 * docs: `/docs/<page>` rendered to HTML (doc-pages.ts; an error's `docUrl`, `/docs/errors#<code>`, opens on
 * its entry), `/docs/<page>.md` the markdown itself. The page and its script are read from the package's
 * `src/reference/`, Redoc's standalone bundle from node_modules: no build step, and nothing from another host.
 * Every file goes out compressed as the browser accepts, with an ETag (fixed-body.ts).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Catalogue } from '../core/catalogue.js';
import { ApiError } from '../core/errors.js';
import { fixedBody, sendFixed, type FixedBody } from '../core/fixed-body.js';
import { CSS, HTML, JS, library, REVALIDATE, sendAsset, type Asset } from '../core/static-files.js';
import { fromRoot } from '../package-root.js';
import { docPage, docTitle } from './doc-pages.js';

const own = (name: string, type: string): Asset => ({ path: () => fromRoot('src', 'reference', name), type, cacheControl: REVALIDATE });

/**
 * The one address Redoc's bundle asks another host for: the Redocly logo beside its "API docs by Redocly"
 * link, whose component removes the image when it fails to load. Served without the address, it fails at
 * once, without a request and without an error.
 */
const REDOCLY_LOGO = '"https://cdn.redoc.ly/redoc/logo-mini.svg"';
const REDOC: Asset = { ...library('redoc/bundles/redoc.standalone.js', JS), edit: (text) => text.replaceAll(REDOCLY_LOGO, '""') };

const PAGE = own('index.html', HTML);
const ASSETS: Record<string, Asset> = {
  'reference.js': own('reference.js', JS),
  'page.css': own('page.css', CSS),
  'redoc.standalone.js': REDOC,
};

const MARKDOWN = 'text/markdown; charset=utf-8';

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

/** A browser opening a page (an old `/docs/errors.md#<code>` link) rather than a program reading markdown. */
const wantsPage = (request: FastifyRequest) => (request.headers.accept ?? '').includes('text/html');

export function registerReferenceRoutes(app: FastifyInstance, docs: ReadonlyMap<string, string>): void {
  app.get('/docs', (request, reply) => sendAsset(request, reply, PAGE, SECURITY_HEADERS));
  for (const [name, asset] of Object.entries(ASSETS)) app.get(`/docs/${name}`, (request, reply) => sendAsset(request, reply, asset, SECURITY_HEADERS));

  // Each made on its first request: most pages of a catalogue are never opened.
  let site: { name: string | undefined } | undefined;
  const siteName = () => (site ??= { name: docs.has('index.md') ? docTitle(docs.get('index.md')!) : undefined }).name;
  const markdown = new Map<string, FixedBody>();
  const pages = new Map<string, FixedBody>();
  const made = (cache: Map<string, FixedBody>, name: string, make: () => string) => {
    let body = cache.get(name);
    if (!body) cache.set(name, (body = fixedBody(make())));
    return body;
  };

  app.get<{ Params: { '*': string } }>('/docs/*', (request, reply) => {
    const path = request.params['*'];
    const name = path.endsWith('.md') ? path : `${path || 'index'}.md`;
    const text = docs.get(name);
    if (text === undefined) throw new ApiError('route_not_found', `No document ${request.url}.`);
    if (!path.endsWith('.md')) return sendFixed(request, reply, made(pages, name, () => docPage(name, text, siteName())), { type: HTML, cacheControl: REVALIDATE, headers: SECURITY_HEADERS });
    // The same address answers markdown to programs and the page to a browser, which keeps the #fragment.
    if (wantsPage(request)) return reply.header('Vary', 'Accept').header('Cache-Control', REVALIDATE).redirect(name.slice(name.lastIndexOf('/') + 1, -'.md'.length), 302);
    return sendFixed(request, reply, made(markdown, name, () => text), { type: MARKDOWN, cacheControl: REVALIDATE, headers: { Vary: 'Accept' } });
  });
}
