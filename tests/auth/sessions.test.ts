import type { Response } from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { startTestApp, type TestApp } from '../support/test-app';
import { agentWith } from '../support/listen';

/**
 * Browser sessions over HTTP (issue 4): the login page, the session cookie's attributes, the
 * session authenticating API requests (unsafe ones only with the CSRF token), the profile page's
 * token forms (CSRF-checked), and logout. A supertest agent keeps cookies as a browser would.
 */

let t: TestApp;
let dana: { id: number; username: string; password: string };
let otherKey: string;

const SITES = '/api/dcim/sites/';
const NO_CREDENTIALS = { detail: 'Authentication credentials were not provided.' };
const HEX40 = /^[0-9a-f]{40}$/;

beforeAll(async () => {
  t = await startTestApp();
  const password = 'dana-password-1';
  const res = await t.api.post('/api/users/users/').set(t.auth).send({ username: 'dana', password });
  expect(res.status).toBe(201);
  dana = { id: res.body.id, username: 'dana', password };
  const perm = await t.api
    .post('/api/users/permissions/')
    .set(t.auth)
    .send({ name: 'dana sites', object_types: ['dcim.site'], actions: ['view', 'add', 'change', 'delete'], users: [dana.id] });
  expect(perm.status).toBe(201);
  otherKey = await t.makeToken({ username: 'someone-else' });
});
afterAll(async () => {
  await t.close();
});

/** The Set-Cookie lines of a response. */
function setCookies(res: Response): string[] {
  const raw = res.headers['set-cookie'] as unknown;
  return Array.isArray(raw) ? (raw as string[]) : typeof raw === 'string' ? [raw] : [];
}

function cookieLine(res: Response, name: string): string | undefined {
  return setCookies(res).find((c) => c.startsWith(`${name}=`));
}

function cookieValue(res: Response, name: string): string | undefined {
  return cookieLine(res, name)?.split(';')[0]!.slice(name.length + 1);
}

/** A form post, as a browser sends it. */
function submit(agent: TestAgent, path: string, fields: Record<string, string>) {
  return agent.post(path).type('form').send(new URLSearchParams(fields).toString());
}

/** The login form filled in as a browser does: the page first (its CSRF cookie and field), then the post. */
async function loginPost(agent: TestAgent, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const form = await agent.get('/login/');
  const token = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(form.text)?.[1] ?? '';
  return submit(agent, '/login/', { csrfmiddlewaretoken: token, ...fields }).set(headers);
}

/** Logs Dana in on a fresh agent; returns the agent, the session cookie value and the page's CSRF token. */
async function login(env: Record<string, string> = {}): Promise<{ agent: TestAgent; session: string; csrf: string }> {
  const agent = agentWith(t, env);
  const res = await loginPost(agent, { username: dana.username, password: dana.password, next: '/user/profile/' });
  expect(res.status).toBe(302);
  const session = cookieValue(res, 'sessionid')!;
  expect(session).toBeDefined();
  return { agent, session, csrf: await csrfOf(agent) };
}

/** The CSRF token the profile page embeds in its forms. */
async function csrfOf(agent: TestAgent): Promise<string> {
  const page = await agent.get('/user/profile/');
  expect(page.status).toBe(200);
  const m = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(page.text);
  expect(m).not.toBeNull();
  return m![1]!;
}

type TokenRow = { id: number; key: string; description: string; write_enabled: boolean; expires: Date | null };

async function tokensOf(userId: number): Promise<TokenRow[]> {
  const r = await t.knex.raw<TokenRow>(`SELECT "id", "key", "description", "write_enabled", "expires" FROM "users_token" WHERE "user_id" = ? ORDER BY "id"`, [userId]);
  return r.rows;
}

async function siteExists(slug: string): Promise<boolean> {
  const r = await t.knex.raw(`SELECT 1 FROM "dcim_site" WHERE "slug" = ?`, [slug]);
  return r.rows.length > 0;
}

describe('the login page', () => {
  test('GET /login/ is an accessible form and sets only the CSRF cookie its form carries', async () => {
    const res = await agentWith(t).get('/login/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toMatch(/<html lang="en">/);
    expect(res.text).toMatch(/<form method="post" action="\/login\/">/);
    expect(res.text).toMatch(/<label for="username">/);
    expect(res.text).toMatch(/<input type="text" id="username" name="username"/);
    expect(res.text).toMatch(/<label for="password">/);
    expect(res.text).toMatch(/<input type="password" id="password" name="password"/);
    expect(setCookies(res).map((c) => c.split('=')[0])).toEqual(['csrftoken']);
    expect(res.text).toContain(`name="csrfmiddlewaretoken" value="${cookieValue(res, 'csrftoken')!}"`);
  });

  test.each([
    ['a wrong password', { username: 'dana', password: 'not-it' }],
    ['an unknown user', { username: 'nobody', password: 'dana-password-1' }],
    ['empty fields', { username: '', password: '' }],
  ])('%s: the form again with an error, and no session cookie', async (_name, fields) => {
    const agent = agentWith(t);
    const res = await loginPost(agent, fields);
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/role="alert"/);
    expect(res.text).toContain('Please enter a correct username and password.');
    expect(cookieLine(res, 'sessionid')).toBeUndefined();
    expect((await agent.get(SITES)).status).toBe(403);
  });

  test('the right password sets the session cookie: HttpOnly, SameSite=Lax, path /, not Secure over plain http', async () => {
    const agent = agentWith(t);
    const res = await loginPost(agent, { username: 'dana', password: dana.password });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/user/profile/');
    const line = cookieLine(res, 'sessionid')!;
    expect(line).toBeDefined();
    expect(cookieValue(res, 'sessionid')).toMatch(/^[0-9a-f]{64}$/);
    expect(line).toMatch(/;\s*HttpOnly/i);
    expect(line).toMatch(/;\s*SameSite=Lax/i);
    expect(line).toMatch(/;\s*Path=\/(;|$)/i);
    expect(line).not.toMatch(/;\s*Secure/i);
    // The CSRF cookie is readable by scripts (not HttpOnly), for them to echo in X-CSRFToken.
    const csrf = cookieLine(res, 'csrftoken')!;
    expect(csrf).toBeDefined();
    expect(csrf).not.toMatch(/HttpOnly/i);
    expect(csrf).toMatch(/SameSite=Lax/i);
  });

  test('the session is stored in the database, not the cookie\'s key itself (a leaked table grants no login)', async () => {
    const { session } = await login();
    const r = await t.knex.raw(`SELECT "key", "user_id" FROM "users_session" WHERE "user_id" = ?`, [dana.id]);
    const rows = r.rows as Array<{ key: string; user_id: number }>;
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.map((s) => s.key)).not.toContain(session);
  });

  test('behind a trusted proxy reporting HTTPS the cookie is Secure; the same header from anyone else is ignored', async () => {
    const proxied = agentWith(t, { TRUSTED_PROXIES: '127.0.0.1,::1' });
    const secure = await loginPost(proxied, { username: 'dana', password: dana.password }, { 'X-Forwarded-Proto': 'https' });
    expect(secure.status).toBe(302);
    expect(cookieLine(secure, 'sessionid')).toMatch(/;\s*Secure/i);
    expect(cookieLine(secure, 'csrftoken')).toMatch(/;\s*Secure/i);
    const direct = await loginPost(agentWith(t), { username: 'dana', password: dana.password }, { 'X-Forwarded-Proto': 'https' });
    expect(direct.status).toBe(302);
    expect(cookieLine(direct, 'sessionid')).not.toMatch(/;\s*Secure/i);
  });

  test('after login, next= is followed to a local path only', async () => {
    for (const [next, location] of [
      ['/api/dcim/sites/', '/api/dcim/sites/'],
      ['//evil.example/', '/user/profile/'],
      ['https://evil.example/', '/user/profile/'],
      ['/\\evil.example', '/user/profile/'],
    ]) {
      const res = await loginPost(agentWith(t), { username: 'dana', password: dana.password, next: next! });
      expect([next, res.status, res.headers.location]).toEqual([next, 302, location]);
    }
  });
});

describe('the session on the API', () => {
  test('authenticates reads', async () => {
    const { agent } = await login();
    const res = await agent.get(SITES);
    expect(res.status).toBe(200);
    expect((await agentWith(t).get(SITES)).body).toEqual(NO_CREDENTIALS);
  });

  test('unsafe requests need X-CSRFToken: none or a wrong one is 403 and writes nothing; the right one works', async () => {
    const { agent, csrf } = await login();
    const missing = await agent.post(SITES).send({ name: 'No CSRF', slug: 'no-csrf' });
    expect(missing.status).toBe(403);
    expect(missing.body.detail).toMatch(/CSRF/);
    const wrong = await agent.post(SITES).set('X-CSRFToken', 'a'.repeat(64)).send({ name: 'Wrong CSRF', slug: 'wrong-csrf' });
    expect(wrong.status).toBe(403);
    expect(await siteExists('no-csrf')).toBe(false);
    expect(await siteExists('wrong-csrf')).toBe(false);

    const ok = await agent.post(SITES).set('X-CSRFToken', csrf).send({ name: 'With CSRF', slug: 'with-csrf' });
    expect(ok.status).toBe(201);
    const id = ok.body.id as number;
    expect((await agent.patch(`${SITES}${id}/`).send({ description: 'no token' })).status).toBe(403);
    expect((await agent.delete(`${SITES}${id}/`)).status).toBe(403);
    expect((await agent.patch(`${SITES}${id}/`).set('X-CSRFToken', csrf).send({ description: 'patched' })).status).toBe(200);
    expect((await agent.delete(`${SITES}${id}/`).set('X-CSRFToken', csrf)).status).toBe(204);
  });

  test('the CSRF token of another session does not count', async () => {
    const first = await login();
    const second = await login();
    expect(first.csrf).not.toBe(second.csrf);
    const res = await first.agent.post(SITES).set('X-CSRFToken', second.csrf).send({ name: 'Cross', slug: 'cross' });
    expect(res.status).toBe(403);
    expect(await siteExists('cross')).toBe(false);
  });

  test('the csrftoken cookie holds the same token the forms carry', async () => {
    const agent = agentWith(t);
    const res = await loginPost(agent, { username: 'dana', password: dana.password });
    expect(cookieValue(res, 'csrftoken')).toBe(await csrfOf(agent));
  });

  test('a session expires after its lifetime (on the app clock)', async () => {
    const { agent } = await login();
    expect((await agent.get(SITES)).status).toBe(200);
    t.clock.advance(15 * 86400_000);
    try {
      expect((await agent.get(SITES)).body).toEqual(NO_CREDENTIALS);
      const profile = await agent.get('/user/profile/');
      expect(profile.status).toBe(302);
    } finally {
      t.clock.advance(-15 * 86400_000);
    }
  });
});

describe('the profile page', () => {
  test('needs a session: without one it redirects to the login page', async () => {
    const res = await agentWith(t).get('/user/profile/');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/login/?next=%2Fuser%2Fprofile%2F');
  });

  test("lists the user's tokens and nobody else's", async () => {
    const created = await t.api.post('/api/users/tokens/').set(t.auth).send({ user: dana.id, description: 'made by admin' });
    expect(created.status).toBe(201);
    const { agent } = await login();
    const page = await agent.get('/user/profile/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('made by admin');
    expect(page.text).toContain(created.body.key);
    expect(page.text).not.toContain(otherKey);
    expect(page.text).toContain('dana');
  });

  test('creating a token with the form shows its key once, and the key works', async () => {
    const { agent, csrf } = await login();
    const before = await tokensOf(dana.id);
    const res = await submit(agent, '/user/tokens/', { csrfmiddlewaretoken: csrf, description: 'from the form', write_enabled: 'on', expires: '' });
    expect(res.status).toBe(201);
    const m = /<span class="key" id="new-token-key">([0-9a-f]+)<\/span>/.exec(res.text);
    expect(m).not.toBeNull();
    const key = m![1]!;
    expect(key).toMatch(HEX40);
    const after = await tokensOf(dana.id);
    expect(after).toHaveLength(before.length + 1);
    expect(after[after.length - 1]).toMatchObject({ key, description: 'from the form', write_enabled: true, expires: null });
    const h = { Authorization: `Token ${key}` };
    expect((await t.api.get(SITES).set(h)).status).toBe(200);
    expect((await t.api.post(SITES).set(h).send({ name: 'Form token', slug: 'form-token' })).status).toBe(201);
    // The next page view does not show it as new.
    expect((await agent.get('/user/profile/')).text).not.toContain('id="new-token-key"');
  });

  test('a token created without write_enabled and with an expiry is read-only and expires', async () => {
    const { agent, csrf } = await login();
    const res = await submit(agent, '/user/tokens/', { csrfmiddlewaretoken: csrf, description: 'read only', expires: '2099-06-01T12:30' });
    expect(res.status).toBe(201);
    const key = /id="new-token-key">([0-9a-f]+)</.exec(res.text)![1]!;
    const row = (await tokensOf(dana.id)).find((r) => r.key === key)!;
    expect(row.write_enabled).toBe(false);
    expect(new Date(row.expires!).toISOString()).toBe('2099-06-01T12:30:00.000Z');
    expect((await t.api.post(SITES).set({ Authorization: `Token ${key}` }).send({ name: 'RO', slug: 'ro-form' })).status).toBe(403);
  });

  test('editing and deleting a token with the forms', async () => {
    const { agent, csrf } = await login();
    await submit(agent, '/user/tokens/', { csrfmiddlewaretoken: csrf, description: 'to edit', write_enabled: 'on' });
    const token = (await tokensOf(dana.id)).find((r) => r.description === 'to edit')!;

    const edit = await submit(agent, `/user/tokens/${token.id}/edit/`, { csrfmiddlewaretoken: csrf, description: 'edited', expires: '2098-01-01T00:00' });
    expect(edit.status).toBe(303);
    expect(edit.headers.location).toBe('/user/profile/');
    const edited = (await tokensOf(dana.id)).find((r) => r.id === token.id)!;
    expect(edited).toMatchObject({ key: token.key, description: 'edited', write_enabled: false });
    expect(new Date(edited.expires!).toISOString()).toBe('2098-01-01T00:00:00.000Z');
    expect((await agent.get('/user/profile/')).text).toContain('value="edited"');

    const del = await submit(agent, `/user/tokens/${token.id}/delete/`, { csrfmiddlewaretoken: csrf });
    expect(del.status).toBe(303);
    expect((await tokensOf(dana.id)).find((r) => r.id === token.id)).toBeUndefined();
    expect((await t.api.get(SITES).set({ Authorization: `Token ${token.key}` })).body).toEqual({ detail: 'Invalid token' });
  });

  test("another user's token cannot be edited or deleted through the forms", async () => {
    const { agent, csrf } = await login();
    const r = await t.knex.raw(`SELECT "id", "user_id", "description" FROM "users_token" WHERE "key" = ?`, [otherKey]);
    const other = (r.rows as Array<{ id: number; user_id: number; description: string }>)[0]!;
    await submit(agent, `/user/tokens/${other.id}/edit/`, { csrfmiddlewaretoken: csrf, description: 'hijacked' });
    await submit(agent, `/user/tokens/${other.id}/delete/`, { csrfmiddlewaretoken: csrf });
    const after = (await t.knex.raw(`SELECT "description", "write_enabled" FROM "users_token" WHERE "id" = ?`, [other.id])).rows;
    expect(after).toEqual([{ description: other.description, write_enabled: true }]);
  });

  test('forms without the CSRF field (or with a wrong one) are 403 and change nothing', async () => {
    const { agent, csrf } = await login();
    await submit(agent, '/user/tokens/', { csrfmiddlewaretoken: csrf, description: 'csrf target', write_enabled: 'on' });
    const target = (await tokensOf(dana.id)).find((r) => r.description === 'csrf target')!;
    const before = await tokensOf(dana.id);
    for (const token of [undefined, 'b'.repeat(64)]) {
      const extra: Record<string, string> = token ? { csrfmiddlewaretoken: token } : {};
      const create = await submit(agent, '/user/tokens/', { ...extra, description: 'forged', write_enabled: 'on' });
      const edit = await submit(agent, `/user/tokens/${target.id}/edit/`, { ...extra, description: 'forged' });
      const del = await submit(agent, `/user/tokens/${target.id}/delete/`, extra);
      for (const res of [create, edit, del]) {
        expect(res.status).toBe(403);
        expect(res.text).toMatch(/CSRF/);
      }
    }
    expect(await tokensOf(dana.id)).toEqual(before);
  });

  test('the forms need a session: a token is not enough', async () => {
    const res = await t.api.post('/user/tokens/').set(t.auth).type('form').send('description=by-token');
    expect(res.status).toBe(302);
    expect(res.headers.location).toMatch(/^\/login\//);
  });
});

describe('logout', () => {
  test('clears the cookie and ends the session: the old cookie no longer works anywhere', async () => {
    const { agent, session, csrf } = await login();
    expect((await agent.get(SITES)).status).toBe(200);
    const out = await submit(agent, '/logout/', { csrfmiddlewaretoken: csrf });
    expect(out.status).toBe(302);
    expect(out.headers.location).toBe('/login/');
    const cleared = cookieLine(out, 'sessionid')!;
    expect(cleared).toBeDefined();
    expect(cleared).toMatch(/^sessionid=;/);
    expect(cleared).toMatch(/Expires=Thu, 01 Jan 1970/i);

    expect((await agent.get(SITES)).body).toEqual(NO_CREDENTIALS);
    // Replaying the old cookie value explicitly (a copy kept elsewhere) is refused too.
    const replay = agentWith(t);
    const res = await replay.get(SITES).set('Cookie', `sessionid=${session}`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(NO_CREDENTIALS);
    expect((await replay.get('/user/profile/').set('Cookie', `sessionid=${session}`)).status).toBe(302);
    expect((await replay.post(SITES).set('Cookie', `sessionid=${session}`).set('X-CSRFToken', csrf).send({ name: 'Replay', slug: 'replay' })).status).toBe(403);
    expect(await siteExists('replay')).toBe(false);
  });

  test('other sessions of the same user stay logged in', async () => {
    const a = await login();
    const b = await login();
    await submit(a.agent, '/logout/', { csrfmiddlewaretoken: a.csrf });
    expect((await a.agent.get(SITES)).status).toBe(403);
    expect((await b.agent.get(SITES)).status).toBe(200);
  });

  test('deactivating the user ends their sessions', async () => {
    const { agent } = await login();
    expect((await agent.get(SITES)).status).toBe(200);
    expect((await t.api.patch(`/api/users/users/${dana.id}/`).set(t.auth).send({ is_active: false })).status).toBe(200);
    try {
      expect((await agent.get(SITES)).body).toEqual(NO_CREDENTIALS);
    } finally {
      expect((await t.api.patch(`/api/users/users/${dana.id}/`).set(t.auth).send({ is_active: true })).status).toBe(200);
    }
  });
});
