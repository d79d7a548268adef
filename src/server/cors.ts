/**
 * Cross-origin access (the Fetch standard's CORS) for browser callers on other origins. The OpenAPI document
 * and the docs are public, readable from any origin, so that documentation tools and playgrounds hosted
 * elsewhere can load them. The API paths (`POST /do`, `/{version}/do`, `/do/{face}.{action}`) answer only
 * the origins of `CORS_ORIGINS` (a comma-separated list, or `*`), preflights included: a key used from a
 * browser page is the page's to protect, so no origin is allowed unless the operator names it. The routes a
 * face module serves for pages to call directly (`RunningModule.crossOrigin`) answer the same origins.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CrossOriginRoutes } from '../core/face-module.js';

/** How long a browser may keep a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE = '600';

const API: CrossOriginRoutes = {
  // `/do`, `/{version}/do` (any version text, as its route takes) and `/do/{face}.{action}`.
  routes: ['/do', '/:version/do', '/do/:call'],
  methods: 'POST',
  // The request headers of docs/contract.md § Requests; the answer's of § Success, § Versions, § Rate limits, § Idempotency.
  allowHeaders: 'Authorization, Content-Type, X-Entity-ID, X-API-Version, X-Idempotency-Key, Accept',
  exposeHeaders: 'Request-Id, X-API-Version, RateLimit, RateLimit-Policy, Retry-After, Idempotent-Replayed, Deprecation, Sunset, Link',
};

const DOCUMENT_PATH = /^\/(?:openapi\.json|docs\/.*)$/;

/** `*`, or the list of allowed origins, from CORS_ORIGINS. */
export function corsOrigins(value: string | undefined): '*' | string[] {
  const origins = (value ?? '').split(',').map((o) => o.trim().replace(/\/+$/, '')).filter(Boolean);
  return origins.includes('*') ? '*' : origins;
}

/** `modules`: the routes of the face modules served here that pages may call directly. */
export function registerCors(app: FastifyInstance, origins: '*' | readonly string[], modules: readonly CrossOriginRoutes[]): void {
  const allows = (origin: string) => origins === '*' || origins.includes(origin);
  const served = [API, ...modules];
  // Known by the route a request matched, so that the paths are written once, as the routes are.
  const byRoute = new Map<string, CrossOriginRoutes>();
  for (const routes of served) for (const route of routes.routes) if (!byRoute.has(route)) byRoute.set(route, routes);
  // With a callback rather than async: it runs on every request, and a promise each is garbage.
  app.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    if ((request.method === 'GET' || request.method === 'HEAD') && DOCUMENT_PATH.test(request.url.split('?')[0]!)) {
      if (typeof origin === 'string') reply.raw.setHeader('Access-Control-Allow-Origin', '*');
      return done();
    }
    const route = request.routeOptions.url;
    const routes = route === undefined ? undefined : byRoute.get(route);
    if (routes) {
      // The answer depends on the Origin header whenever the origins are a list, allowed or not, and even
      // without one: a cache must not hand a copy stored for no origin to a page.
      if (origins !== '*') reply.raw.setHeader('Vary', 'Origin');
      if (typeof origin === 'string' && allows(origin)) allow(reply, origin, origins, routes);
    }
    done();
  });
  for (const routes of served) {
    const preflight = (request: FastifyRequest, reply: FastifyReply) => {
      const origin = request.headers.origin;
      // Allowed or not, a preflight answers 204: the browser refuses the call when the allow headers are missing.
      if (typeof origin === 'string' && allows(origin)) {
        allow(reply, origin, origins, routes);
        reply.raw.setHeader('Access-Control-Allow-Methods', routes.methods);
        reply.raw.setHeader('Access-Control-Allow-Headers', routes.allowHeaders);
        reply.raw.setHeader('Access-Control-Max-Age', PREFLIGHT_MAX_AGE);
      }
      return reply.code(204).send();
    };
    for (const path of routes.routes) app.options(path, preflight);
  }
}

/**
 * On the raw response, so that they go out with a streamed answer too (which writes its own head) as well as
 * with one Fastify sends (whose head keeps them).
 */
function allow(reply: FastifyReply, origin: string, origins: '*' | readonly string[], routes: CrossOriginRoutes): void {
  reply.raw.setHeader('Access-Control-Allow-Origin', origins === '*' ? '*' : origin);
  reply.raw.setHeader('Access-Control-Expose-Headers', routes.exposeHeaders);
}
