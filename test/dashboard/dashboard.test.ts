/**
 * The usage dashboard (GET /dashboard, docs/contract.md § Dashboard) in a real browser: Debian's Chromium driven by
 * playwright-core against a real server. A key is pasted, calls are made through the API, and the headline
 * numbers and the live tail must show them within 2 s; a wrong key, a key without the usage scopes, an empty
 * store, an unreachable server and a renewed or failed live stream each show their message; at phone width
 * the page does not scroll sideways. Screenshots go to test/artifacts/ (not committed); with RECORD=1 the
 * screenshot in docs/faces/usage.md (src/dashboard/screenshot.png) is taken again, after a few minutes of varied calls.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/package-root.js';
import { serve } from '../helpers/process.js';
import { generateCall, startServer, type TestServer } from '../helpers/server.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = fromRoot('test', 'artifacts');
const README_SCREENSHOT = fromRoot('src', 'dashboard', 'screenshot.png');
/** How soon a call must show in the headline numbers and the live tail. */
const WITHIN_MS = 2000;
/** For what waits on the server's flushed usage and a fresh page's first reads: a poll ends as soon as it holds, and a loaded machine may take this long. */
const LOADED_MS = 15_000;

async function launch(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`The dashboard test drives Debian's Chromium at ${CHROMIUM}: apt-get install -y chromium (npm test does, through scripts/provision.sh).`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

/** A page that remembers its console errors and uncaught exceptions (a CSP violation is a console error). */
async function open(context: BrowserContext, url: string): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(`${url}/dashboard`);
  return { page, problems };
}

async function signIn(page: Page, key: string, entity = 'demo'): Promise<void> {
  await page.fill('#key-input', key);
  await page.fill('#entity-input', entity);
  await page.click('#connect-submit');
}

const text = (page: Page, selector: string) => page.locator(selector).innerText();
const tailRows = (page: Page) => page.locator('#tail-body tr').count();

describe('usage dashboard', () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    [server, browser] = await Promise.all([startServer({ usageFlushMs: 50 }), launch()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('serves the page and its files with types, caching and a strict CSP', async () => {
    const page = await fetch(`${server.url}/dashboard`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const html = await page.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);

    for (const [name, type] of [
      ['app.js', 'text/javascript; charset=utf-8'],
      ['breakdowns.js', 'text/javascript; charset=utf-8'],
      ['connect.js', 'text/javascript; charset=utf-8'],
      ['dom.js', 'text/javascript; charset=utf-8'],
      ['live.js', 'text/javascript; charset=utf-8'],
      ['numbers.js', 'text/javascript; charset=utf-8'],
      ['reads.js', 'text/javascript; charset=utf-8'],
      ['session.js', 'text/javascript; charset=utf-8'],
      ['view.js', 'text/javascript; charset=utf-8'],
      ['uPlot.esm.js', 'text/javascript; charset=utf-8'],
      ['uPlot.min.css', 'text/css; charset=utf-8'],
      ['style.css', 'text/css; charset=utf-8'],
    ] as const) {
      const response = await fetch(`${server.url}/dashboard/${name}`);
      expect(response.status, name).toBe(200);
      expect(response.headers.get('content-type'), name).toBe(type);
      const etag = response.headers.get('etag')!;
      expect((await fetch(`${server.url}/dashboard/${name}`, { headers: { 'if-none-match': etag } })).status, name).toBe(304);
    }
    expect((await fetch(`${server.url}/dashboard/uPlot.esm.js`)).headers.get('cache-control')).toContain('max-age=');

    const missing = await fetch(`${server.url}/dashboard/..%2Fpackage.json`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('route_not_found');
    expect((await fetch(`${server.url}/dashboard/server.ts`)).status).toBe(404);
  });

  it('says so when no call is recorded yet, leaving out its own calls', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const { page, problems } = await open(context, server.url);
      await signIn(page, server.adminKey);
      await expect.poll(() => page.locator('#empty').isVisible(), { timeout: WITHIN_MS }).toBe(true);
      expect(await text(page, '#empty')).toContain('No calls recorded in this range yet');
      expect(await text(page, '#stat-calls')).toBe('0');
      // Its own usage.* calls are recorded too; a refresh still finds nothing else.
      await page.waitForTimeout(300);
      await page.click('#refresh');
      await page.waitForTimeout(500);
      expect(await page.locator('#empty').isVisible()).toBe(true);
      expect(await text(page, '#stat-calls')).toBe('0');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows calls in the headline numbers and the live tail within 2 s, and breaks them down', { timeout: 40_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const { page, problems } = await open(context, server.url);
      await signIn(page, server.adminKey);
      await expect.poll(() => page.locator('#live-pill').getAttribute('data-state'), { timeout: WITHIN_MS }).toBe('live');
      await expect.poll(() => page.locator('#empty').isVisible(), { timeout: WITHIN_MS }).toBe(true);

      // Three calls that succeed (two entities) and one refused by validation.
      expect((await server.post(generateCall({ prompt: 'one' }))).status).toBe(200);
      expect((await server.post(generateCall({ prompt: 'two' }))).status).toBe(200);
      expect((await server.post(generateCall({ prompt: 'three' }), { headers: { 'x-entity-id': 'globex' } })).status).toBe(200);
      expect((await server.post({ face: 'ai', action: 'generate', payload: { model: 'test-model' } })).status).toBe(400);
      const called = Date.now();

      await expect.poll(() => text(page, '#stat-calls'), { timeout: WITHIN_MS, interval: 50 }).toBe('4');
      await expect.poll(() => tailRows(page), { timeout: Math.max(1, WITHIN_MS - (Date.now() - called)), interval: 50 }).toBe(4);
      expect(Date.now() - called).toBeLessThan(WITHIN_MS + 250);

      expect(await text(page, '#stat-error-rate')).toBe('25.0%');
      expect(await text(page, '#stat-errors')).toBe('1 error');
      expect(await text(page, '#stat-cost')).toMatch(/^\$0\.\d+$/);
      expect(await text(page, '#stat-cost')).not.toBe('$0.00');
      expect(await text(page, '#stat-p50')).toMatch(/ms$/);
      expect(await page.locator('#empty').isVisible()).toBe(false);
      expect(await page.locator('#charts canvas').count()).toBeGreaterThanOrEqual(3);

      const newest = page.locator('#tail-body tr').first();
      expect(await newest.innerText()).toContain('ai.generate');
      expect(await newest.innerText()).toContain('400');
      expect(await newest.innerText()).toContain('payload_invalid');
      expect(await text(page, '#tail-body')).toContain('globex');

      // Breakdowns: by face (refreshed within a few seconds of calls), then by entity and by key.
      await expect.poll(() => text(page, '#breakdown-body'), { timeout: 8000 }).toMatch(/^ai\t4\t1\t/);
      await page.click('#breakdown-tabs button[data-by="entity"]');
      await expect.poll(() => text(page, '#breakdown-body'), { timeout: LOADED_MS }).toMatch(/acme\t3\t1[\s\S]*globex\t1\t0/);
      await page.click('#breakdown-tabs button[data-by="key"]');
      await expect.poll(() => text(page, '#breakdown-body'), { timeout: LOADED_MS }).toMatch(/^key_\w+\t4\t1/);
      await page.click('#breakdown-tabs button[data-by="face"]');

      // The charts follow a range change; a call made afterwards still shows at once.
      await page.click('#range button[data-range="24h"]');
      await expect.poll(() => text(page, '#range-label')).toContain('24 hours');
      await expect.poll(() => text(page, '#stat-calls'), { timeout: WITHIN_MS }).toBe('4');
      expect((await server.post(generateCall({ prompt: 'five' }))).status).toBe(200);
      await expect.poll(() => text(page, '#stat-calls'), { timeout: WITHIN_MS, interval: 50 }).toBe('5');
      await page.click('#range button[data-range="1h"]');
      await expect.poll(() => text(page, '#stat-calls'), { timeout: WITHIN_MS }).toBe('5');

      // Ticking "Include usage.* calls" counts the page's own calls as well.
      await page.check('#include-usage');
      await expect.poll(async () => Number((await text(page, '#stat-calls')).replace(/,/g, '')), { timeout: WITHIN_MS }).toBeGreaterThan(5);
      await page.uncheck('#include-usage');
      await expect.poll(() => text(page, '#stat-calls'), { timeout: WITHIN_MS }).toBe('5');

      await page.waitForTimeout(300);
      await page.screenshot({ path: join(ARTIFACTS, 'dashboard-1280x800.png') });
      await page.screenshot({ path: join(ARTIFACTS, 'dashboard-1280-full.png'), fullPage: true });
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('fits a phone: one column, tables scroll inside their cards, no sideways page scroll', async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 812 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    try {
      const { page, problems } = await open(context, server.url);
      await signIn(page, server.adminKey);
      await expect.poll(() => tailRows(page), { timeout: LOADED_MS }).toBeGreaterThan(0);
      await expect.poll(() => page.locator('#charts').isVisible(), { timeout: WITHIN_MS }).toBe(true);
      await page.waitForTimeout(500);
      const layout = await page.evaluate(() => {
        const lefts = (selector: string) => [...document.querySelectorAll(selector)].map((e) => Math.round(e.getBoundingClientRect().left));
        const wrap = document.querySelector('#live-card .table-wrap')!;
        return {
          page: document.documentElement.scrollWidth,
          body: document.body.scrollWidth,
          viewport: window.innerWidth,
          statLefts: new Set(lefts('#stats .stat')).size,
          chartLefts: new Set(lefts('#charts .chart-card')).size,
          tailScrolls: wrap.scrollWidth > wrap.clientWidth,
        };
      });
      expect(layout.page).toBeLessThanOrEqual(layout.viewport);
      expect(layout.body).toBeLessThanOrEqual(layout.viewport);
      expect(layout.statLefts).toBe(1);
      expect(layout.chartLefts).toBe(1);
      expect(layout.tailScrolls).toBe(true);
      await page.screenshot({ path: join(ARTIFACTS, 'dashboard-375.png'), fullPage: true });
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('asks for another key when the key is wrong, and keeps it out of URLs and cookies', async () => {
    const context = await browser.newContext();
    try {
      const { page } = await open(context, server.url);
      await signIn(page, `sk_test_${'x'.repeat(40)}`);
      await expect.poll(() => page.locator('#connect-error').isVisible(), { timeout: WITHIN_MS }).toBe(true);
      expect(await text(page, '#connect-error')).toBe('The API key is not known. Paste another key.');
      expect(await page.locator('#dashboard').isVisible()).toBe(false);
      expect(await page.evaluate(() => sessionStorage.getItem('dispatch.dashboard.key'))).toBeNull();

      await signIn(page, server.adminKey);
      await expect.poll(() => page.locator('#dashboard').isVisible(), { timeout: WITHIN_MS }).toBe(true);
      expect(page.url()).toBe(`${server.url}/dashboard`);
      expect(await context.cookies()).toEqual([]);
      expect(await page.evaluate(() => sessionStorage.getItem('dispatch.dashboard.key'))).toBe(server.adminKey);
      // A reload keeps the tab's session.
      await page.reload();
      await expect.poll(() => page.locator('#dashboard').isVisible(), { timeout: WITHIN_MS }).toBe(true);
    } finally {
      await context.close();
    }
  });

  it('explains a key without the usage scopes', async () => {
    const { secret } = await server.key({ scopes: ['ai:generate'], name: 'no usage' });
    const context = await browser.newContext();
    try {
      const { page } = await open(context, server.url);
      await signIn(page, secret);
      await expect.poll(() => text(page, '#banner-text'), { timeout: WITHIN_MS }).toContain('lacks the usage:read scope');
      await expect.poll(() => text(page, '#live-alert'), { timeout: WITHIN_MS }).toContain('lacks the usage:live scope');
      expect(await page.locator('#live-pill').getAttribute('data-state')).toBe('unavailable');
    } finally {
      await context.close();
    }
  });

  it('says when the server cannot be reached, and recovers', async () => {
    const context = await browser.newContext();
    try {
      const { page } = await open(context, server.url);
      await page.route('**/do', (route) => route.abort('connectionrefused'));
      await signIn(page, server.adminKey);
      await expect.poll(() => text(page, '#banner-text'), { timeout: WITHIN_MS }).toContain('Cannot reach the server');
      await expect.poll(() => page.locator('#live-pill').getAttribute('data-state'), { timeout: WITHIN_MS }).toBe('offline');
      expect(await text(page, '#live-alert')).toMatch(/Reconnecting in \d+ s/);
      await page.unroute('**/do');
      await expect.poll(() => page.locator('#banner').isVisible(), { timeout: 10_000 }).toBe(false);
      await expect.poll(() => page.locator('#live-pill').getAttribute('data-state'), { timeout: 10_000 }).toBe('live');
    } finally {
      await context.close();
    }
  });

  it('reconnects when a live stream ends, and backs off after a failed one', async () => {
    const context = await browser.newContext();
    try {
      const { page } = await open(context, server.url);
      let lives = 0;
      await page.route('**/do', async (route) => {
        const body = route.request().postDataJSON() as { face: string; action: string; payload: Record<string, unknown> };
        if (body.face !== 'usage' || body.action !== 'live') return route.continue();
        lives += 1;
        // The first stream fails at once; the second one ends after a second (as any does after maxSeconds).
        if (lives === 1) {
          return route.fulfill({
            status: 200,
            headers: { 'content-type': 'text/event-stream' },
            body:
              'id: 1\nevent: start\ndata: {"requestId":"req_1","apiVersion":"2026-09-01"}\n\n' +
              'id: 2\nevent: error\ndata: {"error":{"type":"api_error","code":"internal_error","message":"Something broke."},"meta":{}}\n\n',
          });
        }
        return route.continue({ postData: JSON.stringify({ ...body, payload: { ...body.payload, maxSeconds: lives === 2 ? 1 : 110 } }) });
      });
      await signIn(page, server.adminKey);
      await expect.poll(() => text(page, '#live-alert'), { timeout: WITHIN_MS }).toMatch(/The live stream ended: Something broke\. \(internal_error\)\. Reconnecting in \d+ s/);
      await expect.poll(() => lives, { timeout: 8000 }).toBeGreaterThanOrEqual(3);
      await expect.poll(() => page.locator('#live-pill').getAttribute('data-state'), { timeout: WITHIN_MS }).toBe('live');
      expect(await text(page, '#live-status')).toContain('stream renewed at');
      expect(await page.locator('#live-alert').isVisible()).toBe(false);
      expect(await page.locator('#live-pill').getAttribute('data-state')).toBe('live');
      // The renewed stream still delivers.
      const before = await tailRows(page);
      expect((await server.post(generateCall({ prompt: 'after renewal' }))).status).toBe(200);
      await expect.poll(() => tailRows(page), { timeout: WITHIN_MS }).toBe(Math.min(before + 1, 100));
    } finally {
      await context.close();
    }
  });
});

describe('the compiled program (npm start)', () => {
  it('serves the dashboard and the chart library', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dispatch-dashboard-'));
    const program = await serve({ DATA_DIR: dataDir });
    try {
      const modules = ['app.js', 'breakdowns.js', 'charts.js', 'connect.js', 'dom.js', 'live.js', 'numbers.js', 'reads.js', 'session.js', 'view.js'];
      for (const path of ['/dashboard', ...modules.map((name) => `/dashboard/${name}`), '/dashboard/uPlot.esm.js', '/dashboard/uPlot.min.css']) {
        const response = await fetch(program.url + path);
        expect(response.status, path).toBe(200);
        expect((await response.text()).length, path).toBeGreaterThan(100);
      }
    } finally {
      await program.stop();
    }
  });
});

/**
 * RECORD=1 only: a few minutes of varied calls (faces, entities, keys, failures) on a fresh server, then
 * the screenshot in docs/faces/usage.md at 1280 px wide, down to the first rows of the live tail.
 */
describe.runIf(process.env.RECORD)('documented screenshot', () => {
  it('records src/dashboard/screenshot.png', { timeout: 600_000 }, async () => {
    const recordServer = await startServer({ usageFlushMs: 100 });
    const recordBrowser = await launch();
    try {
      const other = await recordServer.key({ name: 'backend', scopes: ['*'] });
      const entities = ['acme', 'globex', 'initech', 'umbrella'];
      const minutes = Number(process.env.RECORD_MINUTES ?? 6);
      const end = Date.now() + minutes * 60_000;
      let i = 0;
      while (Date.now() < end) {
        const phase = (Date.now() % 240_000) / 240_000;
        const entity = entities[i % entities.length]!;
        const headers = { 'x-entity-id': entity, ...(i % 3 === 0 ? { authorization: `Bearer ${other.secret}` } : {}) };
        const roll = i % 17;
        if (roll === 5) await recordServer.post({ face: 'ai', action: 'generate', payload: { model: 'test-model' } }, { headers });
        else if (roll === 11) await recordServer.post({ face: 'keys', action: 'list', payload: {} }, { headers });
        else if (roll === 13) await recordServer.post({ face: 'webhooks', action: 'list', payload: {} }, { headers });
        else if (roll === 16) await recordServer.post({ face: 'ai', action: 'translate', payload: {} }, { headers });
        else await recordServer.post(generateCall({ prompt: `Write ${1 + (i % 7)} lines about ${entity}` }), { headers });
        i += 1;
        await new Promise((r) => setTimeout(r, 120 + 500 * (1 + Math.sin(phase * 2 * Math.PI))));
      }
      const context = await recordBrowser.newContext({ viewport: { width: 1280, height: 800 } });
      const { page } = await open(context, recordServer.url);
      await signIn(page, recordServer.adminKey);
      await page.click('#range button[data-range="15m"]');
      await expect.poll(() => tailRows(page), { timeout: LOADED_MS }).toBeGreaterThan(10);
      await page.waitForTimeout(1500);
      // The page down to the first rows of the live tail.
      await page.screenshot({ path: join(ARTIFACTS, 'dashboard-readme.png'), fullPage: true, clip: { x: 0, y: 0, width: 1280, height: 1200 } });
      copyFileSync(join(ARTIFACTS, 'dashboard-readme.png'), README_SCREENSHOT);
      await context.close();
    } finally {
      await recordBrowser.close();
      await recordServer.close();
    }
  });
});
