/**
 * The partition every record belongs to: a mode (test or live) and an entity. Stores and handlers read and
 * write within one.
 */
import type { Mode } from './schema.js';

export interface Partition {
  mode: Mode;
  entityId: string;
}
