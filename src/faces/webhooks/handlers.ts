/**
 * The `webhooks` face: endpoints of one (mode, entity) that receive its events, their deliveries, replays
 * and test pings. The secret of an endpoint is returned when it is created or rotated, and never again.
 * Sending is the delivery worker's job (worker.ts); these handlers only write to the queue.
 */
import type { WebhooksDelivery, WebhooksEndpoint, WebhooksHandlers } from '../../../generated/server/types.js';
import { ApiError } from '../../core/errors.js';
import { listPage } from '../../core/list-page.js';
import { newId } from '../../store/secrets.js';
import type { Partition } from '../../store/partition.js';
import { matchesEventPattern, queueDeliveries } from '../../store/events.js';
import type { WebhookEndpointTable } from '../../store/schema.js';
import { getEvent } from '../../store/event-log.js';
import type { HandlerContext } from '../../core/context.js';
import { checkEventPatterns } from '../../core/event-patterns.js';
import { newSecret } from '../../core/webhook-signing.js';
import type { WebhooksService } from './settings.js';
import { countEndpoints, deleteEndpoint, getEndpoint, insertEndpoint, listDeliveries, listEndpoints, updateEndpoint } from './store.js';
import { resolvedProblem, urlProblem } from '../../core/webhook-urls.js';

/** Endpoints per (mode, entity): each emitting call fans out to all of them, so they are kept few. */
const MAX_ENDPOINTS = 16;

type Ctx = Pick<HandlerContext, 'db' | 'mode' | 'entityId' | 'catalogue' | 'service'>;
const partition = (ctx: Ctx): Partition => ({ mode: ctx.mode, entityId: ctx.entityId });

function toEndpoint(row: WebhookEndpointTable): WebhooksEndpoint {
  return {
    id: row.id,
    url: row.url,
    ...(row.description !== null ? { description: row.description } : {}),
    eventTypes: JSON.parse(row.event_types) as string[],
    status: row.status,
    ...(row.disabled_reason !== null ? { disabledReason: row.disabled_reason } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

async function checkUrl(ctx: Ctx, url: string): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ApiError('webhook_url_invalid', `"${url}" is not an absolute URL.`, { param: '/payload/url' });
  }
  // Strict unless the module's settings (WEBHOOK_ALLOW_PRIVATE_URLS) lift the rules.
  const allow = ctx.service<WebhooksService>('webhooks')?.allowPrivateUrls ?? false;
  const problem = urlProblem(parsed, ctx.mode, allow) ?? (await resolvedProblem(parsed, allow));
  if (problem) throw new ApiError('webhook_url_invalid', `This URL cannot receive webhooks: ${problem}.`, { param: '/payload/url' });
}

async function found(ctx: Ctx, id: string, param = '/payload/id'): Promise<WebhookEndpointTable> {
  const row = await getEndpoint(ctx.db, partition(ctx), id);
  if (!row) throw new ApiError('resource_not_found', `No webhook endpoint ${id}.`, { param });
  return row;
}

/** An endpoint deleted by another call between reading and changing it. */
function gone(id: string): never {
  throw new ApiError('resource_not_found', `No webhook endpoint ${id}.`, { param: '/payload/id' });
}

function enabled(row: WebhookEndpointTable, param: string): WebhookEndpointTable {
  if (row.status !== 'enabled') {
    throw new ApiError('payload_invalid', `Webhook endpoint ${row.id} is disabled; enable it with webhooks.update first.`, { param });
  }
  return row;
}

export const handlers: WebhooksHandlers = {
  async create(payload, ctx) {
    await checkUrl(ctx, payload.url);
    checkEventPatterns(payload.eventTypes, '/payload/eventTypes', ctx.catalogue.eventTypes);
    if ((await countEndpoints(ctx.db, partition(ctx))) >= MAX_ENDPOINTS) {
      throw new ApiError('webhook_endpoint_limit', `An entity has at most ${MAX_ENDPOINTS} webhook endpoints per mode.`, { details: { max: MAX_ENDPOINTS } });
    }
    const now = new Date().toISOString();
    const row: WebhookEndpointTable = {
      id: newId('wh'),
      mode: ctx.mode,
      entity_id: ctx.entityId,
      url: payload.url,
      description: payload.description ?? null,
      event_types: JSON.stringify(payload.eventTypes),
      status: 'enabled',
      disabled_reason: null,
      secret: newSecret(),
      previous_secret: null,
      previous_secret_expires_at: null,
      created_at: now,
      updated_at: now,
    };
    await insertEndpoint(ctx.db, row);
    return { ...toEndpoint(row), secret: row.secret };
  },

  async list(payload, ctx) {
    const rows = await listEndpoints(ctx.db, partition(ctx), payload);
    return listPage(rows, payload.limit, toEndpoint);
  },

  async get(payload, ctx) {
    return toEndpoint(await found(ctx, payload.id));
  },

  async update(payload, ctx) {
    if (payload.url !== undefined) await checkUrl(ctx, payload.url);
    if (payload.eventTypes !== undefined) checkEventPatterns(payload.eventTypes, '/payload/eventTypes', ctx.catalogue.eventTypes);
    const row = await found(ctx, payload.id);
    const status = payload.enabled === undefined ? {} : { status: payload.enabled ? ('enabled' as const) : ('disabled' as const), disabled_reason: payload.enabled ? null : 'disabled' };
    const updated = await updateEndpoint(ctx.db, partition(ctx), row.id, {
      ...(payload.url !== undefined ? { url: payload.url } : {}),
      ...(payload.eventTypes !== undefined ? { event_types: JSON.stringify(payload.eventTypes) } : {}),
      ...(payload.description !== undefined ? { description: payload.description } : {}),
      ...status,
      updated_at: new Date().toISOString(),
    });
    return toEndpoint(updated ?? gone(row.id));
  },

  async delete(payload, ctx) {
    if (!(await deleteEndpoint(ctx.db, partition(ctx), payload.id))) {
      throw new ApiError('resource_not_found', `No webhook endpoint ${payload.id}.`, { param: '/payload/id' });
    }
    return { id: payload.id, deleted: true };
  },

  async rotateSecret(payload, ctx) {
    const row = await found(ctx, payload.id);
    const now = Date.now();
    const overlap = payload.overlapSeconds > 0;
    const updated = await updateEndpoint(ctx.db, partition(ctx), row.id, {
      secret: newSecret(),
      previous_secret: overlap ? row.secret : null,
      previous_secret_expires_at: overlap ? new Date(now + payload.overlapSeconds * 1000).toISOString() : null,
      updated_at: new Date(now).toISOString(),
    });
    if (!updated) gone(row.id);
    return { ...toEndpoint(updated), secret: updated.secret };
  },

  async deliveries(payload, ctx) {
    const rows = await listDeliveries(ctx.db, partition(ctx), payload);
    const items = rows.slice(0, payload.limit).map(
      (d): WebhooksDelivery => ({
        id: d.id,
        eventId: d.event_id,
        eventType: d.event_type,
        endpointId: d.endpoint_id,
        status: d.status,
        ...(d.status === 'pending' ? { nextAttemptAt: d.next_attempt_at } : {}),
        attempts: d.attemptRows.map((a) => ({
          attempt: a.attempt,
          startedAt: a.started_at,
          durationMs: a.duration_ms,
          ...(a.response_status !== null ? { responseStatus: a.response_status } : {}),
          ...(a.error !== null ? { error: a.error } : {}),
          succeeded: Boolean(a.succeeded),
        })),
        createdAt: d.created_at,
      }),
    );
    return { items, hasMore: rows.length > payload.limit };
  },

  async replay(payload, ctx) {
    const event = await getEvent(ctx.db, partition(ctx), payload.eventId);
    if (!event) throw new ApiError('resource_not_found', `No event ${payload.eventId}.`, { param: '/payload/eventId' });
    let endpointIds: string[];
    if (payload.endpointId !== undefined) {
      endpointIds = [enabled(await found(ctx, payload.endpointId, '/payload/endpointId'), '/payload/endpointId').id];
    } else {
      const all = await listEndpoints(ctx.db, partition(ctx), { limit: MAX_ENDPOINTS });
      endpointIds = all
        .filter((e) => e.status === 'enabled' && (JSON.parse(e.event_types) as string[]).some((p) => matchesEventPattern(p, event.type)))
        .map((e) => e.id);
    }
    return { deliveries: await queueDeliveries(ctx.db, partition(ctx), event.id, endpointIds) };
  },

  async test(payload, ctx) {
    const endpoint = enabled(await found(ctx, payload.id), '/payload/id');
    const eventId = ctx.emit('webhooks.endpoint.ping', { endpointId: endpoint.id }, { endpointId: endpoint.id });
    return { eventId };
  },
};
