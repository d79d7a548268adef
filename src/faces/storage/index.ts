/**
 * The `storage` face module: its handlers (handlers.ts) and its own tables (tables.ts).
 */
import type { StorageHandlers } from '../../../generated/server/types.js';
import type { FaceModule } from '../../core/face-module.js';
import { handlers } from './handlers.js';
import { migrations } from './tables.js';

export const storage: FaceModule<StorageHandlers> = { face: 'storage', handlers, migrations };
