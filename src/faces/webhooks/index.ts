/**
 * The `webhooks` face module: its handlers (handlers.ts), its table of delivery attempts (tables.ts), its
 * settings (`WEBHOOK_*`, settings.ts) and the delivery worker (worker.ts): run by `dispatch worker`, and by a
 * server unless `WEBHOOK_WORKER=off` leaves it to workers. A call's commit wakes the workers of its process
 * (`onDeliveriesQueued`, src/store/events.ts), whose outbox queues the deliveries.
 */
import type { WebhooksHandlers } from '../../../generated/server/types.js';
import { runsBackground, type FaceModule } from '../../core/face-module.js';
import { handlers } from './handlers.js';
import { webhookSettings, type WebhookSettings, type WebhooksService } from './settings.js';
import { resealEndpointSecrets } from './store.js';
import { migrations } from './tables.js';
import { WebhookWorker } from './worker.js';

export const webhooks: FaceModule<WebhooksHandlers, WebhookSettings> = {
  face: 'webhooks',
  handlers,
  migrations,
  settings: webhookSettings,
  async start({ db, settings, process }) {
    // Each server start seals the signing secrets sealed under a previous key again under the current one,
    // so that an old key can be dropped (docs/operations.md § Security).
    if (process === 'server') await resealEndpointSecrets(db);
    const worker = runsBackground(process, settings.worker) ? new WebhookWorker(db, settings) : undefined;
    const service: WebhooksService = { allowPrivateUrls: settings.allowPrivateUrls };
    return { background: worker ? [worker] : [], service };
  },
};
