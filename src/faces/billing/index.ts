/**
 * The `billing` face module: its handlers (handlers.ts), its own tables (tables.ts), and the period closer,
 * which closes ended periods into invoices and finalizes drafts (period-closer.ts): run by `dispatch worker`,
 * and by a server unless `BILLING_CLOSER=off` leaves it to workers (settings.ts).
 */
import type { BillingHandlers } from '../../../generated/server/types.js';
import { runsBackground, type FaceModule } from '../../core/face-module.js';
import { handlers } from './handlers.js';
import { PeriodCloser } from './period-closer.js';
import { usageOf } from './services.js';
import { billingSettings, type BillingSettings } from './settings.js';
import { migrations } from './tables.js';

export const billing: FaceModule<BillingHandlers, BillingSettings> = {
  face: 'billing',
  handlers,
  migrations,
  settings: billingSettings,
  start(host) {
    const { db, settings, apiVersion, process } = host;
    const usage = () => usageOf(host);
    const closer = runsBackground(process, settings.closer) ? new PeriodCloser(db, { graceMs: settings.graceMs, intervalMs: settings.intervalMs, apiVersion, usage }) : undefined;
    return { background: closer ? [closer] : [] };
  },
};
