/**
 * Settings of the live payment processor, read from the environment: `STRIPE_API_KEY` and an optional
 * `STRIPE_API_BASE`. Apart from the processor itself (stripe.ts), so that reading them does not load the
 * Stripe SDK: a server without live payments never pays for it at start.
 */

import { httpUrl } from '../http-url.js';

export interface StripeSettings {
  /** A secret (`sk_…`) or restricted (`rk_…`) key. */
  apiKey: string;
  /** Where the API is served, for a local stand-in such as stripe-mock; Stripe's own when unset. */
  host?: string;
  port?: number;
  protocol?: 'http' | 'https';
  /**
   * Upper bound on one Stripe request. The SDK takes no AbortSignal, so this is what ends a request the
   * caller has stopped waiting for.
   */
  timeoutMs?: number;
}

/**
 * Reads `STRIPE_API_KEY` and the optional `STRIPE_API_BASE` (`http://127.0.0.1:12111` for stripe-mock).
 * Undefined without a key: live mode then has no processor and answers 503 provider_unavailable.
 * @throws Error naming the variable when either is invalid.
 */
export function stripeSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): StripeSettings | undefined {
  const apiKey = env.STRIPE_API_KEY?.trim();
  const base = env.STRIPE_API_BASE?.trim();
  if (!apiKey) {
    if (base) throw new Error('STRIPE_API_BASE is set but STRIPE_API_KEY is not: set both, or neither.');
    return undefined;
  }
  // The value is never echoed: it is a secret even when it is the wrong kind of key.
  if (!/^(sk|rk)_(test|live)_\S+$/.test(apiKey)) {
    throw new Error('STRIPE_API_KEY must be a secret key (sk_live_… or sk_test_…) or a restricted key (rk_…), not a publishable one.');
  }
  return { apiKey, ...(base ? parseApiBase(base) : {}) };
}

function parseApiBase(value: string): Pick<StripeSettings, 'host' | 'port' | 'protocol'> {
  const url = httpUrl('STRIPE_API_BASE', value, 'http://127.0.0.1:12111');
  // The SDK takes a host, port and protocol only; a path or credentials would be silently dropped.
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.username || url.password) {
    throw new Error('STRIPE_API_BASE must be a bare origin such as http://127.0.0.1:12111 (no path, query or credentials).');
  }
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return { host: url.hostname, port: url.port ? Number(url.port) : protocol === 'http' ? 80 : 443, protocol };
}
