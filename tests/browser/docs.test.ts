/**
 * A person's view, in a real (headless) browser: Debian's chromium driven by playwright-core, no
 * browser download. The interactive documentation at /api/docs/ lists dcim and ipam operations and
 * executes a GET with a token; the browsable API renders /api/dcim/sites/ with working links.
 * Screenshots go to test-output/browser/. Skips itself (passing, saying why) only when chromium
 * cannot be launched at all.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/test-app';
import { listen } from '../support/listen';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const OUT = path.resolve(__dirname, '..', '..', 'test-output', 'browser');

jest.setTimeout(400_000);

let browser: Browser | null = null;
let unavailable = '';
let t: TestApp;
let served: Awaited<ReturnType<typeof listen>> | undefined;
let base = '';
/** Requests the pages made to anywhere but this server (there must be none: no CDN). */
const foreign: string[] = [];

beforeAll(async () => {
  try {
    if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} does not exist`);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
  } catch (e) {
    unavailable = `chromium cannot be launched (${(e as Error).message.split('\n')[0]}); install Debian's chromium to run this test`;
    return;
  }
  fs.mkdirSync(OUT, { recursive: true });
  t = await startTestApp();
  for (const [name, slug] of [['Amsterdam DC1', 'ams1'], ['Berlin <DC2>', 'ber2'], ['Copenhagen', 'cph1']]) {
    const r = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name, slug, description: 'a "quoted" & <b>escaped</b> description' });
    expect(r.status).toBe(201);
  }
  expect((await t.api.post('/api/ipam/prefixes/').set(t.auth).send({ prefix: '10.20.0.0/16' })).status).toBe(201);
  served = await listen(t);
  base = served.base;
});

afterAll(async () => {
  await browser?.close();
  await served?.close();
  await t?.close();
});

/** A page in a new browser context, or in the given page's (sharing its local storage). */
async function newPage(headers: Record<string, string> = {}, beside?: Page): Promise<Page> {
  const context = beside ? beside.context() : await browser!.newContext({ viewport: { width: 1280, height: 900 }, extraHTTPHeaders: headers });
  const page = await context.newPage();
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(base) || url.startsWith('data:')) return route.continue();
    foreign.push(url);
    return route.abort();
  });
  return page;
}

/** An application with many types (dcim's 42) lists an operation far down, rendered only near the viewport: scroll to it. */
async function reveal(page: Page, wanted: ReturnType<Page['locator']>): Promise<void> {
  await page.mouse.wheel(0, -1_000_000);
  // Each scroll brings the next operations up only once the ones before are drawn, which takes longer on a
  // loaded machine (CI runs two test files at once): keep scrolling for up to two minutes, not a fixed count.
  const until = Date.now() + 120_000;
  while (Date.now() < until && !(await wanted.count())) {
    await page.mouse.wheel(0, 1500);
    await page.waitForTimeout(200);
  }
  await wanted.scrollIntoViewIfNeeded({ timeout: 30_000 });
  await wanted.waitFor({ timeout: 30_000 });
}

/** Swagger UI's tag filter set to one application; it redraws the page: wait until only that section is shown. */
async function showOnly(page: Page, app: string): Promise<void> {
  await page.locator('input.operation-filter-input').fill(app);
  // Evaluated in the page (the test's TypeScript has no DOM types).
  const onlyThis = `(() => { const tags = [...document.querySelectorAll('.opblock-tag')].map((e) => e.getAttribute('data-tag')); return tags.length > 0 && tags.every((x) => x === ${JSON.stringify(app)}); })()`;
  await page.waitForFunction(onlyThis, undefined, { timeout: 120_000 });
}

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(OUT, name), fullPage: false });

test('/api/docs/: dcim and ipam operations listed, one expanded and executed with a token', async () => {
  if (!browser) return console.log(`skipped: ${unavailable}`);
  const page = await newPage();
  // One application's document at a time (the whole one takes Swagger UI minutes): the page's selector, or ?app=.
  for (const [app, op] of [['ipam', 'ipam_aggregates_list'], ['dcim', 'dcim_cable_terminations_list']]) {
    await page.goto(`${base}/api/docs/?app=${app}`);
    await page.locator('input.operation-filter-input').waitFor({ timeout: 120_000 });
    await showOnly(page, app!);
    // The application's first operations (types in alphabetical order) are drawn at once; the rest as the page scrolls.
    await reveal(page, page.locator(`#operations-${app}-${op}`));
    const shown = await page.locator(`[id^="operations-${app}-"]`).evaluateAll((els) => els.map((e) => e.id));
    expect(shown.length).toBeGreaterThan(5);
    await shot(page, `docs-${app}.png`);
  }
  // Authorize with the token, as "Token <key>" (kept in the browser's storage: persistAuthorization).
  await page.mouse.wheel(0, -1_000_000);
  await page.locator('.auth-wrapper .authorize').click();
  const dialog = page.locator('.modal-ux');
  await dialog.locator('input[type="text"], input:not([type])').first().fill(`Token ${t.token}`);
  await dialog.locator('button.modal-btn.authorize').click();
  await dialog.locator('button.modal-btn.btn-done').first().click();

  // A deep link opens "List sites" wherever it lies in dcim's 42 types (Swagger UI's deepLinking), without
  // scrolling through all that come before it; the authorisation is still there.
  const linked = await newPage({}, page);
  await linked.goto(`${base}/api/docs/#/dcim/dcim_sites_list`);
  const op = linked.locator('#operations-dcim-dcim_sites_list');
  await op.waitFor({ timeout: 120_000 });
  await expect(linked.locator('.auth-wrapper .authorize.locked').count()).resolves.toBe(1);

  // "List sites" is open; try it out, execute.
  await op.scrollIntoViewIfNeeded({ timeout: 30_000 });
  if (!(await op.evaluate((el) => el.classList.contains('is-open')))) await op.locator('.opblock-summary').first().click();
  await op.locator('.try-out__btn').click();
  await op.locator('button.execute').click();
  const status = op.locator('.live-responses-table .response .response-col_status').first();
  await status.waitFor({ timeout: 30_000 });
  expect((await status.textContent())?.trim()).toBe('200');
  const body = await op.locator('.live-responses-table .response-col_description pre').first().textContent();
  expect(JSON.parse(body ?? '{}')).toMatchObject({ count: 3 });
  // Only what was filled in is sent: no made-up parameters.
  await expect(op.locator('.request-url pre').textContent()).resolves.toBe(`${base}/api/dcim/sites/`);
  await op.locator('.live-responses-table').scrollIntoViewIfNeeded();
  await shot(linked, 'docs-try-it-out.png');
  await page.context().close();
});

test('/api/schema/swagger-ui/ (NetBox\'s path) shows the same documentation', async () => {
  if (!browser) return console.log(`skipped: ${unavailable}`);
  const page = await newPage();
  await page.goto(`${base}/api/schema/swagger-ui/?app=ipam`);
  await page.locator('input.operation-filter-input').waitFor({ timeout: 120_000 });
  await showOnly(page, 'ipam');
  await reveal(page, page.locator('#operations-ipam-ipam_ip_addresses_list'));
  await page.context().close();
});

test('the browsable API: the root lists applications, /api/dcim/sites/ renders with links that lead to detail pages', async () => {
  if (!browser) return console.log(`skipped: ${unavailable}`);
  const page = await newPage({ Authorization: `Token ${t.token}` });

  await page.goto(`${base}/api/`);
  await expect(page.locator('h1').textContent()).resolves.toBe('API Root');
  const apps = await page.locator('section[aria-labelledby="links-h"] a').allTextContents();
  expect(apps).toEqual(['circuits', 'dcim', 'extras', 'ipam', 'plugins', 'tenancy', 'users', 'virtualization', 'vpn', 'wireless']);
  await shot(page, 'browsable-root.png');
  await page.locator('section[aria-labelledby="links-h"] a', { hasText: 'dcim' }).click();
  await page.waitForURL(`${base}/api/dcim/`);
  await page.locator('section[aria-labelledby="links-h"] a', { hasText: 'sites' }).click();
  await page.waitForURL(`${base}/api/dcim/sites/`);

  await expect(page.locator('h1').textContent()).resolves.toBe('Sites');
  await expect(page.locator('#allow').textContent()).resolves.toBe('GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS');
  await expect(page.locator('.pages .range').textContent()).resolves.toBe('Showing 1–3 of 3');
  // The page shows exactly the JSON the API returns to this caller.
  const json = await (await page.request.get(`${base}/api/dcim/sites/`, { headers: { Accept: 'application/json' } })).json();
  expect(JSON.parse((await page.locator('#response').textContent()) ?? '')).toEqual(json);
  expect(await page.locator('.filters summary').textContent()).toMatch(/Filters/);
  await shot(page, 'browsable-sites.png');

  const detail = page.locator('#response a', { hasText: /\/api\/dcim\/sites\/\d+\/$/ }).first();
  const href = await detail.getAttribute('href');
  await detail.click();
  await page.waitForURL(href!);
  await expect(page.locator('h1').textContent()).resolves.toMatch(/^Site: /);
  await expect(page.locator('#allow').textContent()).resolves.toBe('GET, PUT, PATCH, DELETE, HEAD, OPTIONS');
  // Escaped, not interpreted: the description's markup is text.
  expect(await page.locator('#response b').count()).toBe(0);
  expect(await page.locator('#response').textContent()).toContain('<b>escaped</b>');
  await shot(page, 'browsable-site-detail.png');

  // Filters from the form: a choice filter narrows the list.
  await page.goto(`${base}/api/dcim/sites/?name__ic=berlin`);
  await expect(page.locator('.pages .range').textContent()).resolves.toBe('Showing 1–1 of 1');
  const details = page.locator('.filters details');
  if (!(await details.evaluate((d) => (d as unknown as { open: boolean }).open))) await page.locator('.filters summary').click();
  await page.locator('#f-slug').fill('cph1');
  await page.locator('#filter-form button[type="submit"]').click();
  await page.waitForURL(/slug=cph1/);
  expect(page.url()).not.toMatch(/[?&]name=&/);
  await expect(page.locator('.pages .range').textContent()).resolves.toBe('Showing 1–1 of 1');
  await shot(page, 'browsable-filtered.png');

  // ?format=json forces JSON even for a browser.
  const forced = await page.goto(`${base}/api/dcim/sites/?format=json`);
  expect(forced!.headers()['content-type']).toMatch(/^application\/json/);
  await page.context().close();
});

test('the browsable API without a token: the 403 as a page that says how to authenticate', async () => {
  if (!browser) return console.log(`skipped: ${unavailable}`);
  const page = await newPage();
  const r = await page.goto(`${base}/api/dcim/sites/`);
  expect(r!.status()).toBe(403);
  await expect(page.locator('.status').textContent()).resolves.toBe('HTTP 403 Forbidden');
  expect(await page.locator('.hint').textContent()).toMatch(/Authorization: Token <key>/);
  await shot(page, 'browsable-403.png');
  await page.context().close();
  expect(foreign).toEqual([]);
});
