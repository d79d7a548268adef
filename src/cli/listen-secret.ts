/**
 * The signing secret `dispatch listen` signs forwarded events with: made once and kept in the user's config
 * directory (`$XDG_CONFIG_HOME/dispatch`, else `~/.config/dispatch`), so a receiver configured with it keeps
 * verifying across runs, as it would with an endpoint's secret.
 */
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { newSecret } from '../core/webhook-signing.js';

/** The directory of the command line's own files. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'dispatch');
}

/** A secret as `newSecret` makes them: `whsec_` and 32 bytes in base64. */
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

/** The kept secret, made and written (readable by its owner only) on first use; throws a one-line Error when unusable. */
export function listenSecret(env: NodeJS.ProcessEnv = process.env): { secret: string; path: string } {
  const dir = configDir(env);
  const path = join(dir, 'listen-secret');
  const draft = `${path}.${process.pid}`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Written whole beside its place, then linked in: a link fails when the file exists, so two first runs at
    // once keep one secret, and neither ever reads a file the other has made but not yet written.
    writeFileSync(draft, `${newSecret()}\n`, { mode: 0o600 });
    linkSync(draft, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new Error(`Cannot keep the signing secret in ${path}: ${(error as Error).message}`);
  } finally {
    rmSync(draft, { force: true });
  }
  const secret = readFileSync(path, 'utf8').trim();
  if (!SECRET.test(secret)) throw new Error(`${path} holds no signing secret (whsec_…); delete it to make a new one.`);
  return { secret, path };
}
