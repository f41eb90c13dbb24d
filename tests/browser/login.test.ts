/**
 * A person logging in, in a real headless browser (Debian's chromium driven by playwright-core, no
 * browser download, a fresh profile): the login form, the profile page, a token created there and
 * read off the page, and that key used against the API. Screenshots go to test-output/browser/.
 * Needs /usr/bin/chromium (or CHROMIUM_PATH): `apt-get install -y chromium`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/test-app';
import { listen } from '../support/listen';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const OUT = path.resolve(__dirname, '..', '..', 'test-output', 'browser');
const USER = { username: 'erin', password: 'erin-browser-password' };

jest.setTimeout(180_000);

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let context: BrowserContext;
let profileDir: string;
/** Requests the pages made to anywhere but this server (there must be none). */
const foreign: string[] = [];

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} does not exist: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH`);
  fs.mkdirSync(OUT, { recursive: true });
  t = await startTestApp();
  const user = await t.api.post('/api/users/users/').set(t.auth).send(USER);
  expect(user.status).toBe(201);
  // Erin may read sites, so the token she makes in the browser can be shown to work.
  const perm = await t.api.post('/api/users/permissions/').set(t.auth).send({ name: 'erin reads sites', object_types: ['dcim.site'], actions: ['view'], users: [user.body.id] });
  expect(perm.status).toBe(201);
  expect((await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'Browser site', slug: 'browser-site' })).status).toBe(201);
  server = await listen(t);
  profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'patchbay-chromium-'));
  context = await chromium.launchPersistentContext(profileDir, { executablePath: CHROMIUM, args: ARGS, headless: true, viewport: { width: 1280, height: 900 } });
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(server.base) || url.startsWith('data:')) return route.continue();
    foreign.push(url);
    return route.abort();
  });
});

afterAll(async () => {
  await context?.close();
  if (profileDir) fs.rmSync(profileDir, { recursive: true, force: true });
  await server?.close();
  await t?.close();
});

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(OUT, name), fullPage: true });

test('log in, create a token on the profile page, use its key against the API', async () => {
  const page = await context.newPage();

  // The profile page sends an anonymous visitor to the login form, remembering where they were going.
  await page.goto(`${server.base}/user/profile/`);
  expect(new URL(page.url()).pathname).toBe('/login/');
  await shot(page, 'login-1-form.png');

  // A wrong password: the form again, with an error announced to assistive technology.
  await page.getByLabel('Username').fill(USER.username);
  await page.getByLabel('Password').fill('not-the-password');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('alert').waitFor({ timeout: 30_000 });
  expect(await page.getByRole('alert').textContent()).toContain('Please enter a correct username and password.');
  expect((await context.cookies()).find((c) => c.name === 'sessionid')).toBeUndefined();
  await shot(page, 'login-2-error.png');

  // The right password: the profile page, with a session cookie scripts cannot read.
  await page.getByLabel('Username').fill(USER.username);
  await page.getByLabel('Password').fill(USER.password);
  await Promise.all([page.waitForURL(`${server.base}/user/profile/`), page.getByRole('button', { name: 'Log in' }).click()]);
  expect(await page.getByRole('heading', { level: 2 }).textContent()).toBe(USER.username);
  expect(await page.textContent('body')).toContain('No tokens yet.');
  const session = (await context.cookies()).find((c) => c.name === 'sessionid');
  expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
  expect(await page.evaluate('document.cookie')).not.toContain('sessionid');
  await shot(page, 'login-3-profile.png');

  // Create a token; the page shows its key.
  await page.getByLabel('Description', { exact: true }).last().fill('made in the browser');
  await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Create token' }).click()]);
  const keyText = (await page.locator('#new-token-key').textContent({ timeout: 30_000 }))!.trim();
  expect(keyText).toMatch(/^[0-9a-f]{40}$/);
  // The new token is listed, its description in its edit form.
  await expect(page.locator('input[name="description"][value="made in the browser"]').count()).resolves.toBe(1);
  await shot(page, 'login-4-token-created.png');

  // The key works against the API, from outside the browser.
  const res = await fetch(`${server.base}/api/dcim/sites/`, { headers: { Authorization: `Token ${keyText}`, Accept: 'application/json' } });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { count: number; results: Array<{ slug: string }> };
  expect(body.count).toBe(1);
  expect(body.results[0]!.slug).toBe('browser-site');
  // It is Erin's token.
  const owner = await t.knex.raw(`SELECT u."username", t."description", t."write_enabled" FROM "users_token" t JOIN "users_user" u ON u."id" = t."user_id" WHERE t."key" = ?`, [keyText]);
  expect(owner.rows).toEqual([{ username: USER.username, description: 'made in the browser', write_enabled: true }]);

  // Log out: back to the login page, and the profile needs a login again.
  await Promise.all([page.waitForURL(/\/login\/$/), page.getByRole('button', { name: 'Log out' }).click()]);
  expect((await context.cookies()).find((c) => c.name === 'sessionid')).toBeUndefined();
  await page.goto(`${server.base}/user/profile/`);
  expect(new URL(page.url()).pathname).toBe('/login/');
  await shot(page, 'login-5-logged-out.png');

  // The token outlives the session.
  expect((await fetch(`${server.base}/api/dcim/sites/`, { headers: { Authorization: `Token ${keyText}` } })).status).toBe(200);
  expect(foreign).toEqual([]);
});
