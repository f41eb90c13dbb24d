/**
 * The attacker's trial, section 3, in a real browser (Debian's chromium driven by playwright-core): an
 * export template whose MIME type is text/html ran its script on the API's own origin, with the session
 * of whoever opened the export, and that script minted an API token for an administrator. Now the answer
 * is an attachment (a download, not a page) under Content-Security-Policy: sandbox, and the script never
 * runs. Needs /usr/bin/chromium (or CHROMIUM_PATH): `apt-get install -y chromium`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/test-app';
import { listen } from '../support/listen';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ADMIN = { username: 'root', password: 'root-browser-password' };
const MARK = 'minted-by-an-export';

/**
 * What the attacker's template did: with the reader's session, read the CSRF token from the cookie and
 * create a token; then say so in the page's title. (No double braces: the template engine would read them.)
 */
const EXPLOIT = `<!doctype html><html><head><title>export</title></head><body><script>
var m = document.cookie.match(/csrftoken=([^;]+)/);
fetch('/api/users/tokens/', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-CSRFToken': m ? m[1] : '' }, body: JSON.stringify({ description: '${MARK}' }) })
  .then(function (r) { document.title = 'script ran: ' + r.status; }, function (e) { document.title = 'script ran: ' + e; });
</script></body></html>`;

jest.setTimeout(180_000);

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let context: BrowserContext;
let profileDir: string;

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} does not exist: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH`);
  t = await startTestApp();
  expect((await t.api.post('/api/users/users/').set(t.auth).send(ADMIN)).status).toBe(201);
  // is_superuser is read-only through the API, as in NetBox: made so as createsuperuser would.
  await t.knex.raw(`UPDATE "users_user" SET "is_superuser" = true WHERE "username" = ?`, [ADMIN.username]);
  expect((await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'Exported', slug: 'exported' })).status).toBe(201);
  const template = await t.api.post('/api/extras/export-templates/').set(t.auth)
    .send({ name: 'page', content_types: ['dcim.site'], mime_type: 'text/html', as_attachment: false, file_extension: 'html', template_code: EXPLOIT });
  expect([template.status, template.text]).toEqual([201, expect.any(String)]);
  server = await listen(t);
  profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'patchbay-chromium-'));
  context = await chromium.launchPersistentContext(profileDir, { executablePath: CHROMIUM, args: ARGS, headless: true, acceptDownloads: true });
  await context.route('**/*', (route) => (route.request().url().startsWith(server.base) ? route.continue() : route.abort()));
});

afterAll(async () => {
  await context?.close();
  if (profileDir) fs.rmSync(profileDir, { recursive: true, force: true });
  await server?.close();
  await t?.close();
});

async function minted(): Promise<number> {
  const r = await t.knex.raw(`SELECT count(*)::int AS "n" FROM "users_token" WHERE "description" = ?`, [MARK]);
  return (r.rows as Array<{ n: number }>)[0]!.n;
}

test('an administrator opening an HTML export downloads it: its script does not run, no token is minted', async () => {
  const page = await context.newPage();
  await page.goto(`${server.base}/login/`);
  await page.getByLabel('Username').fill(ADMIN.username);
  await page.getByLabel('Password').fill(ADMIN.password);
  await Promise.all([page.waitForURL(`${server.base}/user/profile/`), page.getByRole('button', { name: 'Log in' }).click()]);

  // Whichever comes first: the browser saves the answer, or the page's script reports that it ran.
  const outcome = Promise.race([
    page.waitForEvent('download', { timeout: 120_000 }).then(async (d) => `download ${d.suggestedFilename()}`),
    page.waitForFunction("document.title.startsWith('script ran')", undefined, { timeout: 120_000 }).then(async () => page.title()),
  ]);
  // A download aborts the navigation itself: the page stays where it was.
  await page.goto(`${server.base}/api/dcim/sites/?export=page`).catch(() => undefined);
  expect(await outcome).toBe('download netbox_sites.html');
  expect(new URL(page.url()).pathname).toBe('/user/profile/');
  expect(await minted()).toBe(0);
  await page.close();
});
