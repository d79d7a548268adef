/**
 * Tells every key cache in this process that a key changed (revoked, expired), so that the change takes
 * effect at once here; other processes see it when their cache entry lapses.
 */
import { EventEmitter } from 'node:events';

const changes = new EventEmitter().setMaxListeners(0);

export function notifyKeyChanged(id: string): void {
  changes.emit('changed', id);
}

export function onKeyChanged(listener: (id: string) => void): () => void {
  changes.on('changed', listener);
  return () => changes.off('changed', listener);
}
