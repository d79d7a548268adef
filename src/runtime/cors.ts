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

/** The paths of the API routes: `/do`, `/{version}/do` (any version text, as its route takes) and `/do/{face}.{action}`. */
const API_PATH = /^\/(?:[^/]+\/)?do(?:\/[^/]*)?$/;
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
    if (DOCUMENT_PATH.test(path) && (request.method === 'GET' || request.method === 'HEAD')) reply.raw.setHeader('Access-Control-Allow-Origin', '*');
    else if (API_PATH.test(path)) {
      // The answer depends on the Origin header whenever the origins are a list, allowed or not.
      if (origins !== '*') reply.raw.setHeader('Vary', 'Origin');
      if (apiAllows(origin)) allowApi(reply, origin, origins);
    }
  });
  const preflight = (request: FastifyRequest, reply: FastifyReply) => {
    const origin = request.headers.origin;
    // Allowed or not, a preflight answers 204: the browser refuses the call when the allow headers are missing.
    if (typeof origin === 'string' && apiAllows(origin)) {
      allowApi(reply, origin, origins);
      reply.raw.setHeader('Access-Control-Allow-Methods', 'POST');
      reply.raw.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      reply.raw.setHeader('Access-Control-Max-Age', PREFLIGHT_MAX_AGE);
    }
    return reply.code(204).send();
  };
  for (const path of ['/do', '/:version/do', '/do/:call']) app.options(path, preflight);
}

/**
 * On the raw response, so that they go out with a streamed answer too (which writes its own head) as well as
 * with one Fastify sends (whose head keeps them).
 */
function allowApi(reply: FastifyReply, origin: string, origins: '*' | readonly string[]): void {
  reply.raw.setHeader('Access-Control-Allow-Origin', origins === '*' ? '*' : origin);
  reply.raw.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  if (origins !== '*') reply.raw.setHeader('Vary', 'Origin');
}
