/**
 * The `events` face: the event log of one (mode, entity), the same stored events that webhooks deliver,
 * kept for the retention period. Each event is answered exactly as a delivery posts it (`wireEvent`).
 */
import type { EventsHandlers } from '../../../generated/server/types.js';
import { ApiError } from '../../core/errors.js';
import { listPage } from '../../core/list-page.js';
import type { Partition } from '../../store/partition.js';
import { getEvent, listEvents, wireEvent } from '../../store/event-log.js';
import { isoInstant, parseInstant } from '../../store/instant.js';
import type { Mode } from '../../store/schema.js';
import { checkEventPatterns } from '../../core/event-patterns.js';

const partition = (ctx: { mode: Mode; entityId: string }): Partition => ({ mode: ctx.mode, entityId: ctx.entityId });

export const handlers: EventsHandlers = {
  async list(payload, ctx) {
    if (payload.types) checkEventPatterns(payload.types, '/payload/types', ctx.catalogue.eventTypes);
    if (payload.from !== undefined && payload.to !== undefined && !(parseInstant(payload.from) < parseInstant(payload.to))) {
      throw new ApiError('event_range_invalid', '`from` must come before `to`.', { param: '/payload/from' });
    }
    let after;
    if (payload.startingAfter !== undefined) {
      after = await getEvent(ctx.db, partition(ctx), payload.startingAfter);
      if (!after) throw new ApiError('resource_not_found', `No event ${payload.startingAfter}.`, { param: '/payload/startingAfter' });
    }
    const rows = await listEvents(ctx.db, partition(ctx), {
      ...(payload.types ? { types: payload.types } : {}),
      ...(payload.from !== undefined ? { from: isoInstant(payload.from) } : {}),
      ...(payload.to !== undefined ? { to: isoInstant(payload.to) } : {}),
      ...(after ? { after } : {}),
      limit: payload.limit,
    });
    return listPage(rows, payload.limit, wireEvent);
  },

  async get(payload, ctx) {
    const event = await getEvent(ctx.db, partition(ctx), payload.id);
    if (!event) throw new ApiError('resource_not_found', `No event ${payload.id}.`, { param: '/payload/id' });
    return wireEvent(event);
  },
};
