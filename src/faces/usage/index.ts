/**
 * The `usage` face module: its handlers (handlers.ts).
 */
import type { UsageHandlers } from '../../../generated/server/types.js';
import type { FaceModule } from '../../core/face-module.js';
import { handlers } from './handlers.js';

export const usage: FaceModule<UsageHandlers> = { face: 'usage', handlers };
