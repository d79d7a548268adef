/**
 * What a key's grants allow: the scopes it holds (an action's scope directly, or through `*` or
 * `<face>:*`) and the entities it may act for. The pipeline's scope and entity stages ask these, and so does
 * the keys face when a key creates or changes another (which may not grant more than its maker holds).
 */
import type { Entities } from '../store/keys.js';

export function holdsScope(held: readonly string[], required: string): boolean {
  const family = `${required.slice(0, required.indexOf(':'))}:*`;
  return held.some((s) => s === '*' || s === required || s === family);
}

export function coversEntity(entities: Entities, id: string): boolean {
  return entities === '*' || entities.includes(id);
}
