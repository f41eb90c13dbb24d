/**
 * The pages a newcomer meets first, in a real headless browser (Debian's chromium, playwright-core):
 * `/` leads to the API root; the browsable API offers logging in and, once logged in, names the user and
 * offers logging out; an anonymous 403 page is titled Forbidden and its header links lead to real pages;
 * the interactive documentation draws one application at a time (dcim included) with a selector.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/test-app';
import { listen } from '../support/listen';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const OUT = path.resolve(__dirname, '..', '..', 'test-output', 'browser');
const USER = { username: 'nell', password: 'nell-newcomer-password' };

jest.setTimeout(400_000);

let browser: Browser;
let t: TestApp;
let served: Awaited<ReturnType<typeof listen>>;
let base = '';
/** Requests the pages made to anywhere but this server (there must be none). */
const foreign: string[] = [];

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} does not exist: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH`);
  fs.mkdirSync(OUT, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
  t = await startTestApp();
  expect((await t.api.post('/api/users/users/').set(t.auth).send(USER)).status).toBe(201);
  served = await listen(t);
  base = served.base;
});

afterAll(async () => {
  await browser?.close();
  await served?.close();
  await t?.close();
});

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(base) || url.startsWith('data:')) return route.continue();
    foreign.push(url);
    return route.abort();
  });
  return page;
}

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(OUT, name), fullPage: false });

test('/ leads to the API root', async () => {
  const page = await newPage();
  const r = await page.goto(`${base}/`);
  expect(r!.status()).toBe(200);
  expect(page.url()).toBe(`${base}/api/`);
  await expect(page.locator('h1').textContent()).resolves.toBe('API Root');
  // A client (no browser) is sent to the JSON root the same way.
  const json = await page.request.get(`${base}/`, { headers: { Accept: 'application/json' }, maxRedirects: 0 });
  expect({ status: json.status(), location: json.headers().location }).toEqual({ status: 302, location: '/api/' });
  await page.context().close();
});

test('the browsable API: log in from its header, come back, see who is logged in, log out', async () => {
  const page = await newPage();
  await page.goto(`${base}/api/dcim/sites/`);
  await expect(page.locator('header nav a', { hasText: 'Log in' }).getAttribute('href')).resolves.toBe('/login/?next=%2Fapi%2Fdcim%2Fsites%2F');
  await page.locator('header nav a', { hasText: 'Log in' }).click();
  await page.waitForURL(`${base}/login/?next=%2Fapi%2Fdcim%2Fsites%2F`);
  await page.getByLabel('Username').fill(USER.username);
  await page.getByLabel('Password').fill(USER.password);
  await Promise.all([page.waitForURL(`${base}/api/dcim/sites/`), page.getByRole('button', { name: 'Log in' }).click()]);
  await expect(page.locator('header .account').textContent()).resolves.toBe(`Logged in as ${USER.username} · Log out`);
  await expect(page.locator('header nav a', { hasText: 'Log in' }).count()).resolves.toBe(0);
  await shot(page, 'browsable-logged-in.png');

  await page.locator('header .account a', { hasText: 'Log out' }).click();
  await page.waitForURL(`${base}/login/`);
  await page.goto(`${base}/api/`);
  await expect(page.locator('header nav a', { hasText: 'Log in' }).count()).resolves.toBe(1);
  await expect(page.locator('header .account').count()).resolves.toBe(0);
  await page.context().close();
});

test('the anonymous 403 page: titled by its endpoint, not Not found; its header links lead to the API root, the docs and the schema', async () => {
  const page = await newPage();
  const r = await page.goto(`${base}/api/dcim/sites/`);
  expect(r!.status()).toBe(403);
  await expect(page.title()).resolves.toBe('Sites – Patchbay REST API');
  await expect(page.locator('h1').textContent()).resolves.toBe('Sites');
  const links = await page.locator('header a').evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute('href')]));
  expect(links).toEqual([
    ['Patchbay REST API', '/api/'],
    ['API documentation', '/api/docs/'],
    ['OpenAPI schema', '/api/schema/'],
    ['Log in', '/login/?next=%2Fapi%2Fdcim%2Fsites%2F'],
  ]);
  for (const [, href] of links) expect({ href, status: (await page.request.get(`${base}${href}`, { headers: { Accept: 'application/json' } })).status() }).toEqual({ href, status: 200 });
  // A path no endpoint has keeps its own title.
  const missing = await page.goto(`${base}/api/dcim/no-such-things/`);
  expect(missing!.status()).toBe(404);
  await expect(page.title()).resolves.toBe('Not found – Patchbay REST API');
  await page.context().close();
});

test('the documentation draws dcim on its own: an operation expands; the selector switches to ipam', async () => {
  const page = await newPage();
  await page.goto(`${base}/api/docs/?app=dcim`);
  // Swagger UI draws the operations near the viewport first: dcim's first type (cable terminations) is at the top.
  const sites = page.locator('#operations-dcim-dcim_cable_terminations_list');
  await sites.waitFor({ timeout: 120_000 });
  await expect(page.locator('#patchbay-app').inputValue()).resolves.toBe('dcim');
  // Only dcim's section is drawn.
  const tags = await page.locator('.opblock-tag').evaluateAll((els) => els.map((e) => e.getAttribute('data-tag')));
  expect(tags).toEqual(['dcim']);
  await sites.scrollIntoViewIfNeeded({ timeout: 30_000 });
  await sites.locator('.opblock-summary').first().click();
  await sites.locator('.try-out__btn').waitFor({ timeout: 60_000 });
  expect(await sites.evaluate((el) => el.classList.contains('is-open'))).toBe(true);
  await shot(page, 'docs-dcim-only.png');

  await Promise.all([page.waitForURL(`${base}/api/docs/?app=ipam`), page.locator('#patchbay-app').selectOption('ipam')]);
  await page.locator('#operations-ipam-ipam_aggregates_list').waitFor({ timeout: 120_000 });
  expect(await page.locator('.opblock-tag').evaluateAll((els) => els.map((e) => e.getAttribute('data-tag')))).toEqual(['ipam']);

  // A deep link picks its application's document.
  await page.goto(`${base}/api/docs/#/dcim/dcim_devices_list`);
  await page.locator('#operations-dcim-dcim_devices_list.is-open').waitFor({ timeout: 120_000 });
  await expect(page.locator('#patchbay-app').inputValue()).resolves.toBe('dcim');
  await page.context().close();
  expect(foreign).toEqual([]);
});
