/**
 * What operators and tools read of a server beside the API: `/healthz` (the process answers), `/readyz` (it
 * reaches its store and is not stopping), `/metrics` (Prometheus, behind a bearer token when one is set), and
 * the OpenAPI document with this server's address (`/openapi.json`, served-openapi.ts), compressed and with an
 * ETag as the reference page's files (the generated docs under `/docs/` are reference-routes.ts's).
 */
import { sql } from 'kysely';
import type { Catalogue } from '../core/catalogue.js';
import { ApiError } from '../core/errors.js';
import { sendFixed } from '../core/fixed-body.js';
import { REVALIDATE } from '../core/static-files.js';
import { embeddedStore } from '../store/open.js';
import type { Db } from '../store/schema.js';
import { equalSecrets } from '../store/secrets.js';
import type { HttpApp } from './http-app.js';
import type { createMetrics } from './metrics.js';
import { listeningOrigin, servedOpenApi } from './served-openapi.js';

export function registerOpsRoutes({ app, sendError, closing }: HttpApp, db: Db, metrics: ReturnType<typeof createMetrics>, metricsToken: string | undefined): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/metrics', async (request, reply) => {
    if (metricsToken !== undefined && !equalSecrets(request.headers.authorization ?? '', `Bearer ${metricsToken}`)) {
      return sendError(reply, new ApiError('api_key_invalid', 'GET /metrics needs "Authorization: Bearer <METRICS_TOKEN>".'));
    }
    const { contentType, text } = await metrics.scrape();
    return reply.type(contentType).send(text);
  });
  app.get('/readyz', async (_request, reply) => {
    // A stopping server is not ready: load balancers take it out of rotation before it goes.
    if (closing()) return reply.code(503).send({ status: 'stopping' });
    try {
      await sql`select 1`.execute(db);
      // The embedded store's usage file has a writer thread of its own (store/sqlite/usage-file.ts): it must run
      // too. Asked, not sent a statement, which would wait behind a long flush or purge.
      if (embeddedStore(db)?.usageWriterAlive() === false) throw new Error('The usage file\'s writer thread has stopped.');
      return { status: 'ready' };
    } catch {
      return reply.code(503).send({ status: 'unavailable', store: 'unreachable' });
    }
  });
}

/** `publicUrl` is `PUBLIC_URL` (or what stands in for it); without it the document names the listening address. */
export function registerDocumentRoutes({ app }: HttpApp, documents: Catalogue['documents'], publicUrl?: string): void {
  if (!documents) return;
  const openapi = servedOpenApi(documents.openapi, () => publicUrl ?? listeningOrigin(app.server));
  app.get('/openapi.json', (request, reply) => sendFixed(request, reply, openapi(), { type: 'application/json', cacheControl: REVALIDATE }));
}
