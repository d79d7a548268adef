/**
 * Where webhooks may be sent. Live mode needs https; no mode may reach private, loopback, link-local or
 * otherwise non-public addresses, so that a subscription cannot turn the platform into a probe of its own
 * network. The addresses are checked when an endpoint is saved and again on every connection, through the
 * lookup the HTTP client uses, so a name that later resolves elsewhere (DNS rebinding) is still refused.
 * `allowPrivateUrls` lifts both rules for development and tests.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import type { Mode } from '../store/schema.js';

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['100::', 64], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8],
] as const) blocked.addSubnet(network, prefix, 'ipv6');

/** True for an address that is not on the public internet (an IPv4 address written as IPv6 included). */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Why a URL may not receive webhooks in `mode`, or undefined when it may (names are not resolved here). */
export function urlProblem(url: URL, mode: Mode, allowPrivate: boolean): string | undefined {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `a webhook URL is http or https, not ${url.protocol}`;
  if (url.protocol === 'http:' && mode === 'live' && !allowPrivate) return 'live-mode webhook URLs must use https';
  if (allowPrivate) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return `${host} is a loopback name`;
  if (isIP(host) && isPrivateAddress(host)) return `${host} is not a public address`;
  return undefined;
}

/**
 * Resolves a host name and refuses it when any of its addresses is not public; names that do not resolve
 * now are accepted (delivery checks again, and retries).
 */
export async function resolvedProblem(url: URL, allowPrivate: boolean): Promise<string | undefined> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (allowPrivate || isIP(host)) return undefined;
  const addresses = await new Promise<LookupAddress[]>((resolve) => dnsLookup(host, { all: true }, (error, found) => resolve(error ? [] : found)));
  const bad = addresses.find((a) => isPrivateAddress(a.address));
  // The address itself is not told: it would map the platform's own network for whoever asks.
  return bad ? `${host} resolves to an address that is not public` : undefined;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for http(s).request that fails the connection when the name resolves to a refused address. */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const bad = allowPrivate ? undefined : addresses.find((a) => isPrivateAddress(a.address));
      if (bad) return callback(Object.assign(new Error(`${hostname} resolves to an address that is not public`), { code: 'EADDRNOTALLOWED' }), []);
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
