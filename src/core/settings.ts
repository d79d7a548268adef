/**
 * Settings read from the environment, by the server and by each face module: a value that cannot be used
 * stops the start with one line that names the variable and what it must be (a ConfigError).
 */
import { httpUrl } from '../providers/http-url.js';

/** A setting of the environment that cannot be used; its message names the setting and what it must be. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** One of `allowed`, or `fallback` when unset. */
export function choice<T extends string>(env: NodeJS.ProcessEnv, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!allowed.includes(raw as T)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, not "${raw}".`);
  return raw as T;
}

/** A whole number of 0 or more, or `fallback` when unset. */
export function integer(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new ConfigError(`${name} must be a whole number, not "${raw}".`);
  return value;
}

/** An http or https URL (checked, never echoed: it may carry credentials), or undefined when unset. */
export function httpUrlSetting(env: NodeJS.ProcessEnv, name: string, example: string): string | undefined {
  const value = env[name]?.trim();
  if (!value) return undefined;
  try {
    httpUrl(name, value, example);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  return value;
}

/**
 * Where clients reach the server (`PUBLIC_URL`), without a trailing slash: the base of error `docUrl`s and
 * of the links a module signs. Undefined when unset.
 */
export function publicUrl(env: NodeJS.ProcessEnv): string | undefined {
  return httpUrlSetting(env, 'PUBLIC_URL', 'https://api.example.com')?.replace(/\/+$/, '');
}
