/**
 * The email module as a process starts it: its settings from the environment (defaults, overrides, one-line
 * refusals), and whether it runs the mail queue's worker in a server and in `dispatch worker`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/settings.js';
import type { ModuleHost } from '../../src/core/face-module.js';
import { email } from '../../src/faces/email/index.js';
import { DEFAULT_EMAIL_SETTINGS, emailSettings, type EmailSettings } from '../../src/faces/email/settings.js';
import { shippedCatalogue } from '../../src/server/shipped.js';
import { openStore } from '../../src/store/open.js';
import type { Db } from '../../src/store/schema.js';

describe('the email module settings', () => {
  it('reads the defaults when nothing is set', () => {
    expect(emailSettings({})).toEqual({ worker: true, retryOffsetsMs: [30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000, 57_600_000], pollMs: 1000, concurrency: 4 });
  });

  it('reads EMAIL_WORKER, EMAIL_RETRY_SCHEDULE, EMAIL_POLL_MS and EMAIL_CONCURRENCY', () => {
    expect(emailSettings({ EMAIL_WORKER: 'off', EMAIL_RETRY_SCHEDULE: '100ms,1s', EMAIL_POLL_MS: '50', EMAIL_CONCURRENCY: '9' })).toEqual({ worker: false, retryOffsetsMs: [100, 1000], pollMs: 50, concurrency: 9 });
  });

  it('refuses a setting it cannot use with one line naming it', () => {
    const refusal = (env: NodeJS.ProcessEnv) => {
      try {
        emailSettings(env);
      } catch (error) {
        return error;
      }
      throw new Error('accepted');
    };
    for (const [env, name] of [
      [{ EMAIL_WORKER: 'maybe' }, 'EMAIL_WORKER'],
      [{ EMAIL_RETRY_SCHEDULE: '5s,1s' }, 'EMAIL_RETRY_SCHEDULE'],
      [{ EMAIL_RETRY_SCHEDULE: 'soon' }, 'EMAIL_RETRY_SCHEDULE'],
      [{ EMAIL_POLL_MS: '-1' }, 'EMAIL_POLL_MS'],
    ] as const) {
      const error = refusal(env);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain(name);
      expect((error as Error).message).not.toContain('\n');
    }
  });
});

describe('the email module in a process', () => {
  let dir: string;
  let db: Db;
  const { platform } = shippedCatalogue();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'email-module-'));
    db = await openStore({ dataDir: dir, migrations: email.migrations ?? [] });
  });

  afterAll(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const host = (process: 'server' | 'worker', settings: EmailSettings): ModuleHost<EmailSettings> => ({
    db,
    providers: {} as ModuleHost<EmailSettings>['providers'],
    faces: new Map(),
    platform,
    settings,
    apiVersion: () => platform.latest,
    process,
    service: () => undefined,
  });

  it('runs the mail worker in a server unless EMAIL_WORKER=off leaves it to workers', async () => {
    const on = await email.start!(host('server', DEFAULT_EMAIL_SETTINGS));
    expect(on.background).toHaveLength(1);
    const off = await email.start!(host('server', { ...DEFAULT_EMAIL_SETTINGS, worker: false }));
    expect(off.background ?? []).toHaveLength(0);
  });

  it('runs the mail worker in dispatch worker whatever EMAIL_WORKER says', async () => {
    const running = await email.start!(host('worker', { ...DEFAULT_EMAIL_SETTINGS, worker: false }));
    expect(running.background).toHaveLength(1);
    running.background![0]!.start();
    await running.background![0]!.stop();
  });

  it('brings the migration of its tables under the name stores have recorded', () => {
    expect(email.migrations?.map((m) => m.name)).toEqual(['0015_email']);
  });
});
