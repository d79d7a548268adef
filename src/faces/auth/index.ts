/**
 * The `auth` face module: its handlers (handlers.ts).
 */
import type { AuthHandlers } from '../../../generated/server/types.js';
import type { FaceModule } from '../../core/face-module.js';
import { handlers } from './handlers.js';

export const auth: FaceModule<AuthHandlers> = { face: 'auth', handlers };
