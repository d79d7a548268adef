/**
 * Where webhooks may be sent. Live mode needs https; no mode may reach private, loopback, link-local or
 * otherwise non-public addresses, so that a subscription cannot turn the platform into a probe of its own
 * network. The addresses are checked when an endpoint is saved and again on every connection, through the
 * lookup the HTTP client uses, so a name that later resolves elsewhere (DNS rebinding) is still refused.
 * `allowPrivateUrls` lifts both rules for development and tests (and for `dispatch listen`, which posts from the
 * developer's machine to a receiver on it).
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Mode } from '../store/schema.js';

/**
 * True for an address that is not on the public internet. Classified by ipaddr.js, which knows the special
 * ranges (loopback, private, link-local, carrier-grade NAT, site-local, 6to4, Teredo, NAT64, documentation,
 * multicast, ...): only plain unicast is public. An IPv4 address written as IPv6 (`::ffff:127.0.0.1`) is judged
 * as the IPv4 address, and the deprecated IPv4-compatible form (`::127.0.0.1`) is refused outright.
 */
export function isPrivateAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) return true;
  return parsed.range() !== 'unicast';
}

/** The host of a URL as it is looked up: without IPv6 brackets or the trailing dot of a fully qualified name. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
}

/**
 * Why a URL may not receive webhooks in `mode`, or undefined when it may (names are not resolved here). The
 * URL is parsed by the WHATWG parser, which normalises the host (`0x7f.1`, `2130706433` and `127.1` are all
 * 127.0.0.1); user names, passwords and fragments, which can only serve to hide the host from a reader, are refused.
 */
export function urlProblem(url: URL, mode: Mode, allowPrivate: boolean): string | undefined {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `a webhook URL is http or https, not ${url.protocol}`;
  if (url.username || url.password) return 'a webhook URL may not hold a user name or password';
  if (url.hash) return 'a webhook URL may not hold a fragment (#...)';
  if (url.protocol === 'http:' && mode === 'live' && !allowPrivate) return 'live-mode webhook URLs must use https';
  if (allowPrivate) return undefined;
  const host = hostOf(url);
  if (host === 'localhost' || host.endsWith('.localhost')) return `${host} is a loopback name`;
  if (ipaddr.isValid(host) && isPrivateAddress(host)) return `${host} is not a public address`;
  return undefined;
}

/**
 * Resolves a host name and refuses it when any of its addresses is not public; names that do not resolve
 * now are accepted (delivery checks again, and retries).
 */
export async function resolvedProblem(url: URL, allowPrivate: boolean): Promise<string | undefined> {
  const host = hostOf(url);
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
