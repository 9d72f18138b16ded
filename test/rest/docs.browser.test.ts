/**
 * The API reference page in a real browser: Debian's Chromium, headless, driven by playwright-core.
 * Every request that leaves the machine is refused and recorded, so the page must work offline.
 * Skipped (with a message) where /usr/bin/chromium is missing; CI installs it (.ci/run).
 */
import fs from 'node:fs';
import os from 'node:os';
import { chromium, type Browser } from 'playwright-core';
import { describeIf, NEEDS_CHROMIUM } from '../helpers/describe-if';
import { createTestApp, type TestApp } from '../helpers/test-app';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = fs.existsSync(CHROMIUM);

describeIf(haveChromium, NEEDS_CHROMIUM(CHROMIUM))('GET /docs in a browser', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { PETS_PATH_SUNSET_DATE: '2027-07-01T00:00:00Z' } });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows both operations, the deprecation and sunset of GET /pets/{petId}, and no try-it panel on GET /store/orders', async () => {
    const page = await browser.newPage();
    const outside: string[] = [];
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(base) || url.startsWith('data:')) return route.continue();
      outside.push(url);
      return route.abort();
    });
    await page.goto(`${base}/docs`);

    const pets = page.locator('.opblock', { hasText: '/pets/{petId}' });
    const orders = page.locator('.opblock', { hasText: '/store/orders' });
    await pets.waitFor({ timeout: 30_000 });
    await orders.waitFor();
    expect(await pets.getAttribute('class')).toContain('opblock-deprecated');
    expect(await orders.getAttribute('class')).not.toContain('opblock-deprecated');
    expect(await page.locator('#operations-tag-Pets').count()).toBe(1);
    expect(await page.locator('#operations-tag-Store').count()).toBe(1);

    await pets.locator('.opblock-summary').click();
    await pets.getByText('Warning: Deprecated').waitFor();
    await pets.getByText('sunset Thu, 01 Jul 2027 00:00:00 GMT', { exact: false }).first().waitFor();
    expect(await pets.getByRole('button', { name: 'Try it out' }).count()).toBe(1);

    await orders.locator('.opblock-summary').click();
    await orders.getByText('X-Total-Count').first().waitFor();
    expect(await orders.getByRole('button', { name: 'Try it out' }).count()).toBe(0);

    expect(outside).toEqual([]);
  });

  it('renders when its URL has a query string (a link with tracking parameters, a trailing slash)', async () => {
    // The page fetched the document from its own URL plus `/./json`, query included: the page again.
    for (const url of ['/docs?utm_source=mail', '/docs/?utm_source=mail&x=1#/Pets/getPetById', '/docs?']) {
      const page = await browser.newPage();
      await page.goto(`${base}${url}`);
      await page.locator('.opblock', { hasText: '/store/orders' }).waitFor({ timeout: 30_000 });
      expect(await page.getByText('Unable to render this definition').count()).toBe(0);
      await page.close();
    }
  });

  /** An IPv4 address of this machine that is not loopback (what a VM or container is reached by). */
  const externalAddress = Object.values(os.networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

  (externalAddress ? it : it.skip)(
    'renders over plain http when opened by IP address, not only on localhost',
    async () => {
      // A browser treats localhost as secure but not an IP address: there a CSP with
      // upgrade-insecure-requests would fetch the page's scripts over https, and the page stayed blank.
      // The same database: this page reads no rows (an app costs less than a database).
      const other = await createTestApp({ database: t });
      try {
        const port = new URL(await other.app.listen({ host: '0.0.0.0', port: 0 })).port;
        const page = await browser.newPage();
        const failed: string[] = [];
        page.on('requestfailed', (r) => failed.push(r.url()));
        await page.goto(`http://${externalAddress}:${port}/docs`);
        await page.locator('.opblock', { hasText: '/store/orders' }).waitFor({ timeout: 30_000 });
        expect(failed.filter((u) => u.startsWith('https:'))).toEqual([]);
        await page.close();
      } finally {
        await other.close();
      }
    },
  );
});
