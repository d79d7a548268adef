/**
 * The `ai` face module: its handlers (handlers.ts).
 */
import type { AiHandlers } from '../../../generated/server/types.js';
import type { FaceModule } from '../../core/face-module.js';
import { handlers } from './handlers.js';

export const ai: FaceModule<AiHandlers> = { face: 'ai', handlers };
