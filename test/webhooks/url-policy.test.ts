/**
 * The address rules of webhook URLs: which addresses count as private, what a URL may look like per mode,
 * and the guarded lookup that refuses a name resolving to a private address at connection time.
 */
import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { guardedLookup, isPrivateAddress, urlProblem } from '../../src/core/webhook-urls.js';

describe('isPrivateAddress', () => {
  it.each([
    ['127.0.0.1', true], ['10.20.30.40', true], ['172.16.0.1', true], ['172.31.255.255', true], ['192.168.1.1', true],
    ['169.254.169.254', true], ['100.64.0.1', true], ['0.0.0.0', true], ['224.0.0.1', true], ['::1', true], ['::', true],
    ['fe80::1', true], ['fd12:3456::1', true], ['::ffff:10.0.0.1', true], ['::ffff:127.0.0.1', true], ['::ffff:a00:1', true], ['not an address', true],
    // Forms that embed, map or tunnel IPv4 loopback, or are site-local, NAT64, 6to4 or Teredo.
    ['::127.0.0.1', true], ['::7f00:1', true], ['2002:7f00:1::1', true], ['64:ff9b::7f00:1', true], ['2001:0:4136:e378::1', true],
    ['fec0::1', true], ['100::1', true], ['2001:db8::1', true],
    ['8.8.8.8', false], ['172.32.0.1', false], ['93.184.216.34', false], ['2606:4700::1111', false], ['::ffff:8.8.8.8', false],
  ])('%s → %s', (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected);
  });
});

describe('urlProblem', () => {
  it.each([
    ['https://hooks.example.com/x', 'live', false, undefined],
    ['http://hooks.example.com/x', 'test', false, undefined],
    ['http://hooks.example.com/x', 'live', false, 'live-mode webhook URLs must use https'],
    ['http://hooks.example.com/x', 'live', true, undefined],
    ['https://127.0.0.1/x', 'test', false, '127.0.0.1 is not a public address'],
    ['https://127.0.0.1/x', 'test', true, undefined],
    ['https://api.localhost/x', 'test', false, 'api.localhost is a loopback name'],
    ['https://[fe80::1]/x', 'live', false, 'fe80::1 is not a public address'],
    ['file:///etc/passwd', 'test', true, 'a webhook URL is http or https, not file:'],
    // Spellings of loopback that the URL parser normalises, and hosts hidden behind userinfo or a fragment.
    ['https://2130706433/x', 'test', false, '127.0.0.1 is not a public address'],
    ['https://0x7f.1/x', 'test', false, '127.0.0.1 is not a public address'],
    ['https://[::ffff:127.0.0.1]/x', 'test', false, '::ffff:7f00:1 is not a public address'],
    ['https://[::127.0.0.1]/x', 'test', false, '::7f00:1 is not a public address'],
    ['https://localhost./x', 'test', false, 'localhost is a loopback name'],
    ['https://hooks.example.com@127.0.0.1/x', 'test', false, 'a webhook URL may not hold a user name or password'],
    ['https://127.0.0.1/x#@hooks.example.com', 'test', false, 'a webhook URL may not hold a fragment (#...)'],
  ] as const)('%s in %s mode (private allowed: %s)', (url, mode, allow, expected) => {
    expect(urlProblem(new URL(url), mode, allow)).toBe(expected);
  });
});

describe('guardedLookup', () => {
  const lookup = (allow: boolean, host: string) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: string | LookupAddress[] }>((resolve) =>
      guardedLookup(allow)(host, { all: false }, (error, address) => resolve({ error, address })),
    );

  it('refuses a name that resolves to a private address when the connection is made', async () => {
    const { error } = await lookup(false, 'localhost');
    expect(error?.code).toBe('EADDRNOTALLOWED');
    // The address is not told: it would map the platform's own network.
    expect(error?.message).toBe('localhost resolves to an address that is not public');
  });

  it('lets it through when private addresses are allowed', async () => {
    const { error, address } = await lookup(true, 'localhost');
    expect(error).toBeNull();
    expect(['127.0.0.1', '::1']).toContain(address);
  });
});
