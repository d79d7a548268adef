/**
 * Cross-origin access (the Fetch standard's CORS) for browser callers on other origins. The OpenAPI document
 * and the docs are public, readable from any origin, so that documentation tools and playgrounds hosted
 * elsewhere can load them. The API paths (`POST /do`, `/{version}/do`, `/do/{face}.{action}`) answer only
 * the origins of `CORS_ORIGINS` (a comma-separated list, or `*`), preflights included: a key used from a
 * browser page is the page's to protect, so no origin is allowed unless the operator names it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** What a page may send: the headers of API.md §2. */
const ALLOWED_HEADERS = 'Authorization, Content-Type, X-Entity-ID, X-API-Version, X-Idempotency-Key, Accept';
/** What a page may read besides the CORS-safelisted headers: those of API.md §3, §7–§9. */
const EXPOSED_HEADERS = 'Request-Id, X-API-Version, RateLimit, RateLimit-Policy, Retry-After, Idempotent-Replayed, Deprecation, Sunset, Link';
/** How long a browser may keep a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE = '600';

const API_PATH = /^\/(?:\d{4}-\d{2}-\d{2}\/)?do(?:\/[^/]*)?$/;
const DOCUMENT_PATH = /^\/(?:openapi\.json|docs\/.*)$/;

/** `*`, or the list of allowed origins, from CORS_ORIGINS. */
export function corsOrigins(value: string | undefined): '*' | string[] {
  const origins = (value ?? '').split(',').map((o) => o.trim().replace(/\/+$/, '')).filter(Boolean);
  return origins.includes('*') ? '*' : origins;
}

export function registerCors(app: FastifyInstance, origins: '*' | readonly string[]): void {
  const apiAllows = (origin: string) => origins === '*' || origins.includes(origin);
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    if (typeof origin !== 'string') return;
    const path = request.url.split('?')[0]!;
    if (DOCUMENT_PATH.test(path) && request.method === 'GET') reply.header('Access-Control-Allow-Origin', '*');
    else if (API_PATH.test(path) && apiAllows(origin)) allowApi(reply, origin, origins);
  });
  const preflight = (request: FastifyRequest, reply: FastifyReply) => {
    const origin = request.headers.origin;
    // Allowed or not, a preflight answers 204: the browser refuses the call when the allow headers are missing.
    if (typeof origin === 'string' && apiAllows(origin)) {
      allowApi(reply, origin, origins);
      reply.header('Access-Control-Allow-Methods', 'POST').header('Access-Control-Allow-Headers', ALLOWED_HEADERS).header('Access-Control-Max-Age', PREFLIGHT_MAX_AGE);
    }
    return reply.code(204).send();
  };
  for (const path of ['/do', '/:version/do', '/do/:call']) app.options(path, preflight);
}

function allowApi(reply: FastifyReply, origin: string, origins: '*' | readonly string[]): void {
  reply.header('Access-Control-Allow-Origin', origins === '*' ? '*' : origin).header('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  // The answer depends on the Origin header whenever it names one origin of a list.
  if (origins !== '*') reply.header('Vary', 'Origin');
}
