/**
 * The `events` face module: its handlers (handlers.ts).
 */
import type { EventsHandlers } from '../../../generated/server/types.js';
import type { FaceModule } from '../../core/face-module.js';
import { handlers } from './handlers.js';

export const events: FaceModule<EventsHandlers> = { face: 'events', handlers };
