/**
 * Tells the mail workers of this process that a message was queued, so that they need not wait for their
 * next poll (messages queued by other processes are found by the poll).
 */
import { EventEmitter } from 'node:events';

const queued = new EventEmitter().setMaxListeners(0);

export function onMailQueued(listener: () => void): () => void {
  queued.on('queued', listener);
  return () => queued.off('queued', listener);
}

export const announceMail = () => queued.emit('queued');
