/**
 * The `payments` face module: its handlers (handlers.ts).
 */
import type { PaymentsHandlers } from '../../../generated/server/types.js';
import type { FaceModule } from '../../core/face-module.js';
import { handlers } from './handlers.js';

export const payments: FaceModule<PaymentsHandlers> = { face: 'payments', handlers };
