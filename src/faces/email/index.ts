/**
 * The `email` face module: its handlers (handlers.ts).
 */
import type { EmailHandlers } from '../../../generated/server/types.js';
import type { FaceModule } from '../../core/face-module.js';
import { handlers } from './handlers.js';

export const email: FaceModule<EmailHandlers> = { face: 'email', handlers };
