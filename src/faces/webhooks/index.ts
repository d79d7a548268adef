/**
 * The `webhooks` face module: its handlers (handlers.ts).
 */
import type { WebhooksHandlers } from '../../../generated/server/types.js';
import type { FaceModule } from '../../core/face-module.js';
import { handlers } from './handlers.js';

export const webhooks: FaceModule<WebhooksHandlers> = { face: 'webhooks', handlers };
