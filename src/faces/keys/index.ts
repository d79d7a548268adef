/**
 * The `keys` face module: its handlers (handlers.ts).
 */
import type { KeysHandlers } from '../../../generated/server/types.js';
import type { FaceModule } from '../../core/face-module.js';
import { handlers } from './handlers.js';

export const keys: FaceModule<KeysHandlers> = { face: 'keys', handlers };
