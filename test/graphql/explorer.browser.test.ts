/**
 * The explorer at GET /graphql in a real browser (Debian's Chromium, headless, playwright-core) with
 * every request that leaves the machine refused: the Sandbox cannot load, so the page falls back by
 * itself to the GraphiQL served by this service; a query typed into it runs and its result shows.
 */
import fs from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { describeIf, NEEDS_CHROMIUM } from '../helpers/describe-if';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

jest.setTimeout(120_000);

describeIf(fs.existsSync(CHROMIUM), NEEDS_CHROMIUM(CHROMIUM))('the explorer at GET /graphql, offline', () => {
  let browser: Browser;
  // One database for the suite's apps, and one app per EXPLORER setting (the tests do not collide).
  let database: TestDatabase;
  const apps = new Map<string, Promise<{ t: TestApp; base: string }>>();
  beforeAll(async () => {
    database = await createTestDatabase();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    for (const served of apps.values()) await (await served).t.app.close();
    await database?.destroy();
  });

  function serve(env: Record<string, string>): Promise<{ t: TestApp; base: string }> {
    const name = JSON.stringify(env);
    if (!apps.has(name))
      apps.set(
        name,
        createTestApp({ env, database }).then(async (t) => ({
          t,
          base: await t.app.listen({ host: '127.0.0.1', port: 0 }),
        })),
      );
    return apps.get(name)!;
  }

  /** A page whose requests off this machine are refused and recorded; page errors are recorded too. */
  async function offlinePage(base: string): Promise<{ page: Page; outside: string[]; errors: string[] }> {
    const page = await browser.newPage();
    const outside: string[] = [];
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/Failed to load resource|net::ERR_FAILED/.test(m.text())) errors.push(m.text());
    });
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(base) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
      outside.push(url);
      return route.abort();
    });
    return { page, outside, errors };
  }

  /** Types a query into GraphiQL's editor, runs it, and returns the result pane's text once it holds `expected`. */
  async function runQuery(page: Page, query: string, expected: string): Promise<string> {
    const editor = page.locator('.graphiql-query-editor .CodeMirror').first();
    await editor.waitFor({ timeout: 60_000 });
    // CodeMirror 5 keeps its API on the element: replace the whole document, as typing would.
    await editor.evaluate(
      (el, text) => (el as unknown as { CodeMirror: { setValue(v: string): void } }).CodeMirror.setValue(text),
      query,
    );
    // GraphiQL reads the edited document (and its operation name) after a short debounce.
    await page.waitForTimeout(500);
    await page.locator('.graphiql-execute-button').click();
    const result = page.locator('.result-window');
    try {
      await result.getByText(expected, { exact: false }).waitFor({ timeout: 30_000 });
    } catch (error) {
      throw new Error(`${(error as Error).message}\nresult pane: ${await result.innerText().catch(() => '?')}`);
    }
    return result.innerText();
  }

  it('falls back to the local GraphiQL when Apollo Sandbox cannot load, and runs a typed query', async () => {
    const { t, base } = await serve({});
    await t.services.categories.create({ name: 'Offline birds', description: 'seen without internet' });
    const { page, outside, errors } = await offlinePage(base);
    await page.goto(`${base}/graphql`);
    const text = await runQuery(page, '{ categories(first: 5) { nodes { name description } } }', 'Offline birds');
    expect(text).toContain('seen without internet');
    // The page says, visibly, that this is the local GraphiQL because the Sandbox could not load.
    const notice = page.locator('#explorer-notice');
    expect(await notice.isVisible()).toBe(true);
    expect(await notice.innerText()).toMatch(/Apollo Sandbox cannot be loaded.*local GraphiQL/);
    // The only request that tried to leave was the Sandbox's script, and it was refused.
    expect(outside.every((u) => u.startsWith('https://embeddable-sandbox.cdn.apollographql.com/'))).toBe(true);
    expect(outside.length).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('with EXPLORER=graphiql serves GraphiQL only: no request leaves, a Bearer key in the headers editor reaches the server', async () => {
    const { t, base } = await serve({ EXPLORER: 'graphiql' });
    const { page, outside, errors } = await offlinePage(base);
    await page.goto(`${base}/graphql`);
    // Without a key a protected query is refused...
    expect(await runQuery(page, '{ orders(first: 1) { totalCount } }', 'UNAUTHENTICATED')).toContain('UNAUTHENTICATED');
    // GraphiQL was asked for: no fallback notice.
    expect(await page.locator('#explorer-notice').isVisible()).toBe(false);
    // ... and with the admin key typed into the headers editor it runs.
    await page.getByText('Headers', { exact: true }).click();
    const headers = page.locator('.graphiql-editor-tool .CodeMirror').last();
    await headers.waitFor();
    await headers.evaluate(
      (el, text) => (el as unknown as { CodeMirror: { setValue(v: string): void } }).CodeMirror.setValue(text),
      JSON.stringify({ Authorization: t.admin.authorization }),
    );
    await page.waitForTimeout(500);
    expect(await runQuery(page, '{ orders(first: 1) { totalCount } }', '"totalCount": 0')).toContain('"totalCount": 0');
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('serves the schema to the docs explorer', async () => {
    const { base } = await serve({ EXPLORER: 'graphiql' });
    const { page, errors } = await offlinePage(base);
    await page.goto(`${base}/graphql`);
    await page.locator('.graphiql-query-editor .CodeMirror').first().waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: /Show Documentation Explorer/i }).click();
    await page.getByText('Query', { exact: true }).first().waitFor({ timeout: 30_000 });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('EXPLORER=off serves no page', async () => {
    const { t } = await serve({ EXPLORER: 'off' });
    const page = await t.app.inject({ method: 'GET', url: '/graphql', headers: { accept: 'text/html' } });
    expect(page.headers['content-type']).not.toContain('text/html');
    expect((await t.app.inject({ url: '/explorer/graphiql.min.js' })).statusCode).toBe(404);
  });

  it('serves only its own files under /explorer/', async () => {
    const { t } = await serve({ EXPLORER: 'graphiql' });
    expect((await t.app.inject({ url: '/explorer/graphiql.min.js' })).statusCode).toBe(200);
    for (const url of ['/explorer/package.json', '/explorer/../package.json', '/explorer/umd/react.development.js']) {
      const res = await t.app.inject({ url });
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.body).not.toContain('"dependencies"');
    }
  });
});
