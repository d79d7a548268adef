/**
 * The API reference (GET /docs) in a real browser: Debian's Chromium driven by playwright-core against a real
 * server. Redoc renders the server's OpenAPI document from this origin alone: every face is a section, an
 * action shows its curl and TypeScript samples, the page raises no error and asks no other host for
 * anything. An error's docUrl, and its older markdown address, open the rendered error catalogue on that
 * error's entry. Screenshots go to test/artifacts/ (not committed); with RECORD=1 the picture in
 * docs/calling.md (src/reference/screenshot.png) is taken again.
 */
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/package-root.js';
import { startServer, type TestServer } from '../helpers/server.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = fromRoot('test', 'artifacts');

describe('the API reference at /docs', () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`This test drives Debian's Chromium at ${CHROMIUM}: apt-get install -y chromium (npm test does, through scripts/provision.sh).`);
    mkdirSync(ARTIFACTS, { recursive: true });
    [server, browser] = await Promise.all([
      startServer(),
      chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
      }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A page that notes its console errors and every request it makes to anyone but this server. */
  async function watchedPage() {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const problems: string[] = [];
    const elsewhere: string[] = [];
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    page.on('pageerror', (error) => problems.push(error.message));
    // Answered or not: a request the policy blocks is reported as a console error instead.
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(`${server.url}/`) && !url.startsWith('blob:') && !url.startsWith('data:')) elsewhere.push(url);
    });
    return { page, problems, elsewhere };
  }

  it('renders every face and an action with its samples, from this origin only, without an error', async () => {
    const { page, problems, elsewhere } = await watchedPage();
    await page.goto(`${server.url}/docs`);
    await page.locator('h2', { hasText: 'Generate text from a prompt.' }).first().waitFor({ timeout: 30_000 });
    expect(await page.title()).toBe('Unified Dispatch API reference');
    const sections = await page.locator('[data-section-id^="tag/"]').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-section-id')));
    for (const face of ['ai', 'auth', 'billing', 'email', 'keys', 'payments', 'storage', 'webhooks']) expect(sections, face).toContain(`tag/${face}`);
    expect(sections).toContain('tag/auth/operation/authLogin');
    expect(await page.getByRole('tab', { name: 'curl' }).count()).toBeGreaterThan(0);
    expect(await page.getByRole('tab', { name: 'TypeScript' }).count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(ARTIFACTS, 'reference.png') });
    // One action, its samples beside it: the picture in docs/calling.md (taken again with RECORD=1).
    await page.locator('[data-section-id="tag/ai/operation/aiGenerate"]').evaluate((node) => node.scrollIntoView({ block: 'start' }));
    await page.getByRole('tab', { name: 'curl' }).first().waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'reference-action.png') });
    if (process.env.RECORD === '1') copyFileSync(join(ARTIFACTS, 'reference-action.png'), fromRoot('src', 'reference', 'screenshot.png'));
    // Redoc's sidebar would show Redocly's logo from its CDN; the bundle is served without that address.
    expect(problems).toEqual([]);
    expect(elsewhere).toEqual([]);
    expect(await page.getByRole('link', { name: 'API docs by Redocly' }).count()).toBe(1);
  }, 90_000);

  it("opens an error's docUrl on that error's rendered entry, and its old markdown address too", async () => {
    const { page, problems, elsewhere } = await watchedPage();
    const answer = await server.post({ face: 'nope', action: 'x', payload: {} });
    const { code, docUrl } = answer.body.error as { code: string; docUrl: string };
    expect([code, docUrl]).toEqual(['face_not_found', '/docs/errors#face_not_found']);
    for (const address of [docUrl, '/docs/errors.md#face_not_found']) {
      await page.goto(new URL(address, server.url).href);
      expect(page.url()).toBe(`${server.url}/docs/errors#face_not_found`);
      // The entry is the fragment's target, rendered, and scrolled into the window.
      const entry = await page.evaluate(() => {
        const target = document.querySelector(':target');
        const box = target?.getBoundingClientRect();
        return { tag: target?.tagName, id: target?.id, text: target?.textContent, top: box?.top, bottom: box?.bottom, height: window.innerHeight, scrolled: window.scrollY };
      });
      expect(entry).toMatchObject({ tag: 'H3', id: code, text: code });
      expect(entry.scrolled).toBeGreaterThan(0);
      expect(entry.top).toBeGreaterThanOrEqual(0);
      expect(entry.bottom).toBeLessThanOrEqual(entry.height);
      expect(await page.locator('#face_not_found + p').textContent()).toContain('No face has that name');
    }
    await page.screenshot({ path: join(ARTIFACTS, 'error-entry.png') });
    expect(problems).toEqual([]);
    expect(elsewhere).toEqual([]);
  }, 60_000);

  it('is served under a policy that allows this origin only', async () => {
    const response = await fetch(`${server.url}/docs`);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect((await fetch(`${server.url}/docs/redoc.standalone.js`)).status).toBe(200);
    expect((await fetch(`${server.url}/docs/index.md`)).headers.get('content-type')).toContain('text/markdown');
  });
});
