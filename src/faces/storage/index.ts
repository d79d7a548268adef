/**
 * The `storage` face module: its handlers (handlers.ts), its own tables (tables.ts), its settings
 * (settings.ts: STORAGE_*, S3_*, PUBLIC_URL), and in each process the blob store they name (files, or an
 * S3-compatible bucket), offered to handlers and other modules as the `storage` service (service.ts), the
 * background work (worker.ts: landed uploads, expired ones, released content, daily accrual; run by servers
 * and workers alike) and, for the files store, the routes its signed URLs point at (routes.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { StorageHandlers } from '../../../generated/server/types.js';
import type { FaceModule } from '../../core/face-module.js';
import { FileBlobStore } from './file-blobs.js';
import { handlers } from './handlers.js';
import { listeningUrl, signedRoutes, SIGNED_URLS_CROSS_ORIGIN } from './routes.js';
import { storageService } from './service.js';
import { storageSettings, type StorageSettings } from './settings.js';
import { migrations } from './tables.js';
import { StorageWorker } from './worker.js';

export const storage: FaceModule<StorageHandlers, StorageSettings> = {
  face: 'storage',
  handlers,
  migrations,
  settings: storageSettings,
  async start({ db, settings, platform }) {
    let listening: FastifyInstance | undefined;
    const baseUrl = () => {
      if (settings.publicUrl) return settings.publicUrl;
      if (!listening) throw new Error('Signed URLs need the server to listen first, or PUBLIC_URL.');
      return listeningUrl(listening);
    };
    // The S3 SDK is loaded only when a bucket is configured.
    const files = settings.s3 ? undefined : new FileBlobStore(settings.dir, baseUrl);
    const blobs = files ?? new (await import('./s3-blobs.js')).S3BlobStore(settings.s3!);
    const service = storageService(blobs, platform.tiers);
    return {
      service,
      background: [new StorageWorker(db, service, settings.worker)],
      // S3's signed URLs point at the bucket: this server answers only the files store's.
      ...(files
        ? {
            crossOrigin: [SIGNED_URLS_CROSS_ORIGIN],
            routes(app: FastifyInstance) {
              listening = app;
              app.register(async (scope) => signedRoutes(scope, db, service, files));
            },
          }
        : {}),
    };
  },
};
