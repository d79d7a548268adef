/**
 * The `auth` face module: its handlers (handlers.ts), its own tables (tables.ts: users, sessions, the login
 * throttle) and their stores (store.ts, throttle-store.ts).
 */
import type { AuthHandlers } from '../../../generated/server/types.js';
import type { FaceModule } from '../../core/face-module.js';
import { handlers } from './handlers.js';
import { migrations } from './tables.js';

export const auth: FaceModule<AuthHandlers> = { face: 'auth', handlers, migrations };
