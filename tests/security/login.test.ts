/**
 * Findings 5 and 6: a cross-site form POST to /login/ logged the victim into the attacker's account
 * (login CSRF), and sessions survived a password change for up to 14 days. The login form now carries
 * the CSRF token of a cookie the login page sets, and a cross-site Origin is refused, as Django's CSRF
 * middleware does; a session is valid only while the user's password is the one it was opened with.
 */
import type TestAgent from 'supertest/lib/agent';
import { startTestApp, type TestApp } from '../support/test-app';
import supertest from 'supertest';
import { agentWith, listen } from '../support/listen';
import { createSuperuser } from '../../engine/cli/createsuperuser';

let t: TestApp;
let userId: number;
const SITES = '/api/users/tokens/';
const NO_CREDENTIALS = { detail: 'Authentication credentials were not provided.' };

beforeAll(async () => {
  t = await startTestApp();
  const res = await t.api.post('/api/users/users/').set(t.auth).send({ username: 'mallory', password: 'mallory-password-1' });
  expect(res.status).toBe(201);
  userId = res.body.id;
  await t.api.post('/api/users/users/').set(t.auth).send({ username: 'victor', password: 'victor-password-1' });
});
afterAll(async () => {
  await t.close();
});

const tokenOf = (html: string) => /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(html)?.[1];
const sessionSet = (res: { headers: Record<string, unknown> }) => ([] as string[]).concat((res.headers['set-cookie'] as string[] | undefined) ?? []).some((c) => c.startsWith('sessionid='));

async function logIn(agent: TestAgent, username: string, password: string): Promise<void> {
  const token = tokenOf((await agent.get('/login/')).text)!;
  const res = await agent.post('/login/').type('form').send(new URLSearchParams({ csrfmiddlewaretoken: token, username, password }).toString());
  expect(res.status).toBe(302);
}

describe('login CSRF', () => {
  test('a form posted from another site (its own Origin, no cookie of ours) is refused and logs nobody in', async () => {
    const victim = agentWith(t);
    const res = await victim
      .post('/login/')
      .set('Origin', 'http://attacker.example')
      .type('form')
      .send('username=mallory&password=mallory-password-1&next=/user/profile/');
    expect(res.status).toBe(403);
    expect(sessionSet(res)).toBe(false);
    expect((await victim.get(SITES)).body).toEqual(NO_CREDENTIALS);
  });

  test("the attacker's own token does not help: it must match the victim's cookie, and the Origin must be ours", async () => {
    const attacker = agentWith(t);
    const stolen = tokenOf((await attacker.get('/login/')).text)!;
    const victim = agentWith(t);
    await victim.get('/login/'); // the victim has a csrftoken cookie of their own
    const sameOriginForged = await victim.post('/login/').type('form').send(`csrfmiddlewaretoken=${stolen}&username=mallory&password=mallory-password-1`);
    expect(sameOriginForged.status).toBe(403);
    const crossOrigin = await attacker.post('/login/').set('Origin', 'http://attacker.example').type('form').send(`csrfmiddlewaretoken=${stolen}&username=mallory&password=mallory-password-1`);
    expect(crossOrigin.status).toBe(403);
    expect(sessionSet(sameOriginForged) || sessionSet(crossOrigin)).toBe(false);
  });

  test('a form without the token, or with a Referer from elsewhere, is refused', async () => {
    const agent = agentWith(t);
    const token = tokenOf((await agent.get('/login/')).text)!;
    expect((await agent.post('/login/').type('form').send('username=mallory&password=mallory-password-1')).status).toBe(403);
    const referred = await agent.post('/login/').set('Referer', 'http://attacker.example/page').type('form').send(`csrfmiddlewaretoken=${token}&username=mallory&password=mallory-password-1`);
    expect(referred.status).toBe(403);
  });

  test('the login page itself, from this site, logs in', async () => {
    // On one port for the page and the post, as a browser sees one site.
    const server = await listen(t);
    try {
      const agent = supertest.agent(server.base);
      const token = tokenOf((await agent.get('/login/')).text)!;
      const res = await agent.post('/login/').set('Origin', server.base).type('form').send(`csrfmiddlewaretoken=${token}&username=mallory&password=mallory-password-1`);
      expect(res.status).toBe(302);
      expect((await agent.get(SITES)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('a password change ends the sessions opened with the old password', () => {
  test('through the API: every session of that user ends; other users keep theirs', async () => {
    const first = agentWith(t);
    const second = agentWith(t);
    const other = agentWith(t);
    await logIn(first, 'mallory', 'mallory-password-1');
    await logIn(second, 'mallory', 'mallory-password-1');
    await logIn(other, 'victor', 'victor-password-1');
    expect((await first.get(SITES)).status).toBe(200);
    expect((await t.api.patch(`/api/users/users/${userId}/`).set(t.auth).send({ password: 'mallory-password-2' })).status).toBe(200);
    expect((await first.get(SITES)).body).toEqual(NO_CREDENTIALS);
    expect((await second.get(SITES)).body).toEqual(NO_CREDENTIALS);
    expect((await other.get(SITES)).status).toBe(200);
    // The new password opens a new session.
    const fresh = agentWith(t);
    await logIn(fresh, 'mallory', 'mallory-password-2');
    expect((await fresh.get(SITES)).status).toBe(200);
  });

  test('a change of another field keeps the sessions', async () => {
    const agent = agentWith(t);
    await logIn(agent, 'victor', 'victor-password-1');
    const victor = (await t.api.get('/api/users/users/?username=victor').set(t.auth)).body.results[0].id as number;
    expect((await t.api.patch(`/api/users/users/${victor}/`).set(t.auth).send({ first_name: 'Victor' })).status).toBe(200);
    expect((await agent.get(SITES)).status).toBe(200);
  });

  test('through the command line (createsuperuser re-passwords an existing user): the sessions end too', async () => {
    const agent = agentWith(t);
    await logIn(agent, 'mallory', 'mallory-password-2');
    expect((await agent.get(SITES)).status).toBe(200);
    await createSuperuser(t.knex, t.registry, 'mallory', 'mallory-password-3');
    expect((await agent.get(SITES)).body).toEqual(NO_CREDENTIALS);
  });
});
