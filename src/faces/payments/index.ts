/**
 * The `payments` face module: its handlers (handlers.ts), its own tables, the ledger's among them
 * (tables.ts), the reconciler, which settles charges and refunds that calls left in flight at the processor
 * (reconciler.ts): run by `dispatch worker`, and by a server unless `PAYMENTS_RECONCILER=off` leaves it to
 * workers (settings.ts); and the service other faces charge through (service.ts).
 */
import type { PaymentsHandlers } from '../../../generated/server/types.js';
import { runsBackground, type FaceModule } from '../../core/face-module.js';
import { handlers } from './handlers.js';
import { createIntent } from './intents.js';
import { PaymentReconciler } from './reconciler.js';
import type { PaymentsService } from './service.js';
import { paymentsSettings, type PaymentsSettings } from './settings.js';
import { getCustomer } from './store.js';
import { migrations } from './tables.js';
import { toCustomer } from './wire.js';

const service: PaymentsService = {
  async customer(call, id) {
    const row = await getCustomer(call.db, { mode: call.mode, entityId: call.entityId }, id);
    return row && toCustomer(row);
  },
  charge: (call, { intentId, ...charge }) =>
    // Captured at once, so the hold's event (`capturable`) is never sent.
    createIntent(call, { ...charge, captureMethod: 'automatic', confirm: true }, intentId),
};

export const payments: FaceModule<PaymentsHandlers, PaymentsSettings> = {
  face: 'payments',
  handlers,
  migrations,
  settings: paymentsSettings,
  start({ db, providers, settings, apiVersion, process }) {
    const reconciler = runsBackground(process, settings.reconciler) ? new PaymentReconciler(db, providers.payments, { graceMs: settings.graceMs, intervalMs: settings.intervalMs, apiVersion }) : undefined;
    return { background: reconciler ? [reconciler] : [], service };
  },
};
