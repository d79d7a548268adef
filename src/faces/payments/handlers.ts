/**
 * The `payments` face (docs/contract.md § Payments and billing): customers, payment intents, refunds and the balance. The flows live beside
 * this file (intents, refunds, the ledger and the accounts they move money through); this file maps actions to
 * them and reads lists. Everything is confined to the call's (mode, entity).
 */
import type { PaymentsHandlers } from '../../../generated/server/types.js';
import { authorized, captured } from './accounts.js';
import { cancelIntent, captureIntent, confirmIntent, createIntent, loadIntent } from './intents.js';
import { createRefund } from './refunds.js';
import { toCustomer, toIntent, toRefund } from './wire.js';
import { ApiError } from '../../core/errors.js';
import { listPage } from '../../core/list-page.js';
import { balances } from './ledger.js';
import { getCustomer, insertCustomer, listCustomers, listIntents, listRefunds, updateCustomer } from './store.js';
import type { Mode } from '../../store/schema.js';
import { newId } from '../../store/secrets.js';

/** The endings of the intent accounts whose sums are the balance (see src/faces/payments/accounts.ts). */
const CAPTURED = captured('').slice('intent:'.length);
const AUTHORIZED = authorized('').slice('intent:'.length);

const partition = (ctx: { mode: Mode; entityId: string }) => ({ mode: ctx.mode, entityId: ctx.entityId });

export const handlers: PaymentsHandlers = {
  async createCustomer(payload, ctx) {
    const row = {
      mode: ctx.mode,
      entity_id: ctx.entityId,
      id: newId('cus'),
      email: payload.email ?? null,
      name: payload.name ?? null,
      metadata: payload.metadata ? JSON.stringify(payload.metadata) : null,
      created_at: new Date().toISOString(),
    };
    await insertCustomer(ctx.db, row);
    return toCustomer(row);
  },

  async getCustomer(payload, ctx) {
    const row = await getCustomer(ctx.db, partition(ctx), payload.id);
    if (!row) throw new ApiError('resource_not_found', `No customer ${payload.id}.`, { param: '/payload/id' });
    return toCustomer(row);
  },

  async listCustomers(payload, ctx) {
    const limit = payload.limit ?? 20;
    return listPage(await listCustomers(ctx.db, partition(ctx), limit, payload.startingAfter), limit, toCustomer);
  },

  async updateCustomer(payload, ctx) {
    const changes = {
      ...(payload.email !== undefined ? { email: payload.email } : {}),
      ...(payload.name !== undefined ? { name: payload.name } : {}),
      ...(payload.metadata !== undefined ? { metadata: JSON.stringify(payload.metadata) } : {}),
    };
    const row = await updateCustomer(ctx.db, partition(ctx), payload.id, changes);
    if (!row) throw new ApiError('resource_not_found', `No customer ${payload.id}.`, { param: '/payload/id' });
    return toCustomer(row);
  },

  createIntent: (payload, ctx) => createIntent(ctx, payload),
  confirmIntent: (payload, ctx) => confirmIntent(ctx, payload.id, payload.paymentMethod),
  captureIntent: (payload, ctx) => captureIntent(ctx, payload.id, payload.amountToCapture),
  cancelIntent: (payload, ctx) => cancelIntent(ctx, payload.id, payload.cancellationReason),

  async getIntent(payload, ctx) {
    return toIntent(await loadIntent(ctx, payload.id));
  },

  async listIntents(payload, ctx) {
    const limit = payload.limit ?? 20;
    const filter = { ...(payload.customer ? { customer: payload.customer } : {}), ...(payload.startingAfter ? { startingAfter: payload.startingAfter } : {}) };
    return listPage(await listIntents(ctx.db, partition(ctx), limit, filter), limit, toIntent);
  },

  createRefund: (payload, ctx) => createRefund(ctx, payload),

  async listRefunds(payload, ctx) {
    const limit = payload.limit ?? 20;
    const filter = { ...(payload.intent ? { intent: payload.intent } : {}), ...(payload.startingAfter ? { startingAfter: payload.startingAfter } : {}) };
    return listPage(await listRefunds(ctx.db, partition(ctx), limit, filter), limit, toRefund);
  },

  async balance(_payload, ctx) {
    const available = new Map<string, number>();
    const pending = new Map<string, number>();
    for (const account of await balances(ctx.db, partition(ctx), 'intent:')) {
      const into = account.id.endsWith(CAPTURED) ? available : account.id.endsWith(AUTHORIZED) ? pending : undefined;
      into?.set(account.currency, (into.get(account.currency) ?? 0) + account.balance);
    }
    const money = (byCurrency: Map<string, number>) => [...byCurrency].sort(([a], [b]) => a.localeCompare(b)).map(([currency, amount]) => ({ amount, currency }));
    return { available: money(available), pending: money(pending) };
  },
};
