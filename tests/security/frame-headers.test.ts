/**
 * Section 3 of the attacker's trial: the HTML pages (the login form, the profile page with its token
 * forms, the browsable API, the API documentation) could be framed by any site, and clicked through
 * unseen (clickjacking). Every answer now says X-Frame-Options: DENY and Content-Security-Policy:
 * frame-ancestors 'none' (NetBox says SAMEORIGIN; Patchbay frames nothing of its own).
 */
import type TestAgent from 'supertest/lib/agent';
import { startTestApp, type TestApp } from '../support/test-app';
import { agentWith } from '../support/listen';

let t: TestApp;
const USER = { username: 'framed', password: 'framed-password-123' };

beforeAll(async () => {
  t = await startTestApp();
  expect((await t.api.post('/api/users/users/').set(t.auth).send(USER)).status).toBe(201);
});
afterAll(async () => {
  await t.close();
});

function expectUnframeable(what: string, res: { headers: Record<string, string | undefined>; status: number }): void {
  expect([what, res.headers['x-frame-options'], res.headers['content-security-policy']]).toEqual([what, 'DENY', "frame-ancestors 'none'"]);
}

async function loggedIn(): Promise<TestAgent> {
  const agent = agentWith(t);
  const form = await agent.get('/login/');
  const csrf = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(form.text)![1]!;
  const res = await agent.post('/login/').type('form').send(new URLSearchParams({ csrfmiddlewaretoken: csrf, ...USER }).toString());
  expect(res.status).toBe(302);
  return agent;
}

test('the login page, the profile page and a refused form', async () => {
  const login = await t.api.get('/login/');
  expect(login.headers['content-type']).toMatch(/^text\/html/);
  expectUnframeable('/login/', login);
  const agent = await loggedIn();
  const profile = await agent.get('/user/profile/');
  expect([profile.status, profile.headers['content-type']]).toEqual([200, 'text/html; charset=utf-8']);
  expectUnframeable('/user/profile/', profile);
  const refused = await agent.post('/user/tokens/').type('form').send('description=x');
  expect(refused.status).toBe(403);
  expectUnframeable('refused form', refused);
});

test('the browsable API, a page of it that is an error, and the API documentation', async () => {
  for (const [path, h] of [['/api/', {}], ['/api/dcim/sites/', t.auth], ['/api/dcim/sites/', {}], ['/api/docs/', {}], ['/api/schema/swagger-ui/', {}]] as const) {
    const res = await t.api.get(path).set({ Accept: 'text/html', ...h });
    expect([path, res.headers['content-type']]).toEqual([path, 'text/html; charset=utf-8']);
    expectUnframeable(path, res);
  }
});

test('JSON answers say the same (no answer can be framed, whatever its type)', async () => {
  expectUnframeable('/api/status/', await t.api.get('/api/status/'));
  expectUnframeable('404', await t.api.get('/nowhere/'));
});
