/**
 * The generated docs as a server serves them (docs/contract.md § Endpoints): every page rendered to HTML at
 * `/docs/<page>`, every error code an entry of `/docs/errors` whose id is the code (the fragment of its
 * `docUrl`), every link between the pages landing on a page and an element of it; the markdown still at
 * `/docs/<page>.md` for programs, while a browser asking for it is sent to the page.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shippedCatalogue } from '../../src/server/shipped.js';
import { startServer, type TestServer } from '../helpers/server.js';

const catalogue = shippedCatalogue();
const names = [...catalogue.documents!.docs.keys()];

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

/** The ids of a page's elements. */
const ids = (html: string) => new Set([...html.matchAll(/ id="([^"]+)"/g)].map(([, id]) => id!));

describe('the rendered docs', () => {
  it('gives every error code an entry whose id is the fragment of its docUrl', async () => {
    const page = await fetch(`${server.url}/docs/errors`);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).toContain('<title>Errors · Unified Dispatch API</title>');
    const entries = ids(html);
    expect(catalogue.errors.size).toBeGreaterThan(50);
    for (const code of catalogue.errors.keys()) expect(entries, code).toContain(code);
    expect(html).toMatch(/<h3 id="card_declined">card_declined<\/h3>\s*<p>The card was declined\.<\/p>/);
  });

  it('serves every page, and every link of every page lands on a page and one of its elements', async () => {
    const pages = new Map<string, string>();
    const open = async (url: URL) => {
      const key = url.pathname;
      if (!pages.has(key)) {
        const answer = await fetch(url);
        pages.set(key, answer.status === 200 ? await answer.text() : '');
      }
      return pages.get(key)!;
    };
    const dead: string[] = [];
    let links = 0;
    for (const name of names) {
      const address = new URL(`/docs/${name.replace(/\.md$/, '')}`, server.url);
      const html = await open(address);
      expect(html, name).toMatch(/^<!doctype html>/);
      for (const [, href] of html.matchAll(/ href="([^"]+)"/g)) {
        const target = new URL(href!.replace(/&amp;/g, '&'), address);
        if (target.origin !== server.url) continue;
        links++;
        const linked = await open(target);
        const anchor = decodeURIComponent(target.hash.slice(1));
        if (!linked || (anchor && !ids(linked).has(anchor))) dead.push(`${name}: ${href}`);
      }
    }
    expect(links).toBeGreaterThan(1000);
    expect(dead).toEqual([]);
    // The links between the docs name the pages, not their markdown.
    expect([...pages.keys()].filter((path) => path.endsWith('.md'))).toEqual([]);
  });
});

describe('the markdown of the docs', () => {
  it('is served to programs, and a browser is sent to the page, its fragment kept', async () => {
    const markdown = await fetch(`${server.url}/docs/errors.md`);
    expect(markdown.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(markdown.headers.get('vary')).toBe('Accept, Accept-Encoding');
    expect(await markdown.text()).toBe(catalogue.documents!.docs.get('errors.md'));
    for (const [path, location] of [
      ['/docs/errors.md', 'errors'],
      ['/docs/faces/ai.md', 'ai'],
    ]) {
      const moved = await fetch(`${server.url}${path}`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }, redirect: 'manual' });
      expect([moved.status, moved.headers.get('location'), moved.headers.get('vary')]).toEqual([302, location, 'Accept']);
    }
    const followed = await fetch(`${server.url}/docs/faces/ai.md`, { headers: { accept: 'text/html' } });
    expect([followed.url, followed.headers.get('content-type')]).toEqual([`${server.url}/docs/faces/ai`, 'text/html; charset=utf-8']);
  });

  it('answers a page that does not exist with the error envelope, a path that climbs out included', async () => {
    // Sent as written: fetch would resolve the dot segments before the server saw them.
    for (const path of ['/docs/nope', '/docs/nope.md', '/docs/../package.json', '/docs/%2e%2e/package.json', '/docs/faces/../../package.json', '/docs/errors.md.md']) {
      const answer = await rawGet(`${server.url}${path}`);
      expect([path, answer.status, (JSON.parse(answer.body) as { error: { code: string } }).error.code]).toEqual([path, 404, 'route_not_found']);
    }
  });
});

/** GET with the path exactly as given, dot segments and all. */
function rawGet(url: string): Promise<{ status: number; body: string }> {
  const { origin, host } = new URL(url);
  return new Promise((resolve, reject) => {
    const sent = request(origin, { method: 'GET', path: url.slice(origin.length), headers: { host } }, (answer) => {
      let body = '';
      answer.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      answer.on('end', () => resolve({ status: answer.statusCode!, body }));
    });
    sent.on('error', reject).end();
  });
}
