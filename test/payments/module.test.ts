/**
 * The payments module as a process starts it: its setting (`PAYMENTS_RECONCILER`), where its reconciler runs
 * (every worker; a server unless the setting leaves it to workers), and the service it offers other faces.
 */
import { describe, expect, it } from 'vitest';
import type { ModuleHost } from '../../src/core/face-module.js';
import { ConfigError } from '../../src/core/settings.js';
import { payments } from '../../src/faces/payments/index.js';
import { DEFAULT_PAYMENTS_SETTINGS, paymentsSettings, type PaymentsSettings } from '../../src/faces/payments/settings.js';

const host = (process: 'server' | 'worker', settings: PaymentsSettings): ModuleHost<PaymentsSettings> =>
  ({ db: {} as never, providers: { payments: {} } as never, platform: {} as never, faces: new Map(), settings, apiVersion: () => '2026-01-01', process, service: () => undefined }) as ModuleHost<PaymentsSettings>;

describe('the payments module', () => {
  it('reads PAYMENTS_RECONCILER, on unless set off, and refuses any other value in one line', () => {
    expect(paymentsSettings({})).toEqual(DEFAULT_PAYMENTS_SETTINGS);
    expect(DEFAULT_PAYMENTS_SETTINGS).toEqual({ reconciler: true, graceMs: 180_000, intervalMs: 15_000 });
    expect(paymentsSettings({ PAYMENTS_RECONCILER: 'off' }).reconciler).toBe(false);
    expect(() => paymentsSettings({ PAYMENTS_RECONCILER: 'no' })).toThrow(ConfigError);
    expect(() => paymentsSettings({ PAYMENTS_RECONCILER: 'no' })).toThrow('PAYMENTS_RECONCILER must be one of on, off, not "no".');
  });

  it('runs the reconciler in every worker, and in a server unless it is left to workers', async () => {
    const off = { ...DEFAULT_PAYMENTS_SETTINGS, reconciler: false };
    expect((await payments.start!(host('server', DEFAULT_PAYMENTS_SETTINGS))).background).toHaveLength(1);
    expect((await payments.start!(host('server', off))).background).toHaveLength(0);
    expect((await payments.start!(host('worker', off))).background).toHaveLength(1);
  });

  it('offers the service other faces charge through', async () => {
    const { service } = await payments.start!(host('server', DEFAULT_PAYMENTS_SETTINGS));
    expect(Object.keys(service ?? {}).sort()).toEqual(['charge', 'customer']);
  });
});
