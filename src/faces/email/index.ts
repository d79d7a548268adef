/**
 * The `email` face module: its handlers (handlers.ts), its own tables (tables.ts), and the mail queue's
 * worker (worker.ts), run by `dispatch worker`, and by a server unless `EMAIL_WORKER=off` leaves it to
 * workers (settings.ts). Live messages go through the providers' SMTP transport (`providers.email.live`).
 */
import type { EmailHandlers } from '../../../generated/server/types.js';
import { runsBackground, type FaceModule, type ModuleHost } from '../../core/face-module.js';
import type { StorageService } from '../storage/service.js';
import { handlers } from './handlers.js';
import { emailSettings, type EmailSettings } from './settings.js';
import { migrations } from './tables.js';
import { MailWorker } from './worker.js';

/**
 * Where the worker reads attachments' content: the storage module's service, asked at each send (modules
 * start in the catalogue's order, and e-mail comes before storage).
 */
export function attachmentStorage(host: ModuleHost<EmailSettings>): () => StorageService | undefined {
  return () => host.service<StorageService>('storage');
}

export const email: FaceModule<EmailHandlers, EmailSettings> = {
  face: 'email',
  handlers,
  migrations,
  settings: emailSettings,
  start(host) {
    const { db, settings, providers, apiVersion, process } = host;
    if (!runsBackground(process, settings.worker)) return {};
    const transport = providers.email?.live;
    const worker = new MailWorker(db, {
      retryOffsetsMs: settings.retryOffsetsMs,
      pollMs: settings.pollMs,
      concurrency: settings.concurrency,
      apiVersion,
      storage: attachmentStorage(host),
      ...(transport ? { transport } : {}),
    });
    return { background: [worker] };
  },
};
