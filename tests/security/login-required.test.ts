/**
 * Finding 8: with LOGIN_REQUIRED=true, /api/, /api/status/ (with versions), /api/<app>/, /api/schema/ and
 * /api/docs/ still answered anonymously. Now everything under /api/ needs a user, except the static
 * assets of the documentation and token provisioning (meant for callers without a token); the login
 * page stays open. A browser asking for a page is sent to log in.
 */
import { startTestApp, type TestApp } from '../support/test-app';
import { apiWith } from '../support/listen';
import type TestAgent from 'supertest/lib/agent';

let t: TestApp;
let api: TestAgent;
const NO_CREDENTIALS = { detail: 'Authentication credentials were not provided.' };

beforeAll(async () => {
  t = await startTestApp();
  api = apiWith(t, { LOGIN_REQUIRED: 'true', EXEMPT_VIEW_PERMISSIONS: '*' });
  expect((await t.api.post('/api/users/users/').set(t.auth).send({ username: 'pat', password: 'pat-password-1' })).status).toBe(201);
});
afterAll(async () => {
  await t.close();
});

const paths = ['/api/', '/api/status/', '/api/dcim/', '/api/users/', '/api/schema/', '/api/schema/?format=yaml', '/api/dcim/sites/', '/api/dcim/sites/1/'];

test.each(paths)('anonymous GET %s is a 403 without credentials', async (path) => {
  const res = await api.get(path);
  expect([res.status, res.body]).toEqual([403, NO_CREDENTIALS]);
  expect(res.text).not.toContain('netbox-version');
});

test.each(paths)('with a token GET %s is served', async (path) => {
  expect((await api.get(path).set(t.auth)).status).toBe(path === '/api/dcim/sites/1/' ? 404 : 200);
});

test('OPTIONS and HEAD are refused too', async () => {
  expect((await api.options('/api/dcim/sites/')).status).toBe(403);
  expect((await api.head('/api/status/')).status).toBe(403);
});

test('the documentation page sends a browser to log in; its static assets are served to anyone', async () => {
  const page = await api.get('/api/docs/').set('Accept', 'text/html');
  expect(page.status).toBe(302);
  expect(page.headers.location).toBe('/login/?next=%2Fapi%2Fdocs%2F');
  expect((await api.get('/api/docs/swagger-ui.css')).status).toBe(200);
  expect((await api.get('/api/docs/swagger-ui-bundle.js')).status).toBe(200);
  const browsable = await api.get('/api/dcim/sites/').set('Accept', 'text/html');
  expect([browsable.status, browsable.headers.location]).toEqual([302, '/login/?next=%2Fapi%2Fdcim%2Fsites%2F']);
});

test('token provisioning and the login page need no login', async () => {
  const res = await api.post('/api/users/tokens/provision/').send({ username: 'pat', password: 'pat-password-1' });
  expect(res.status).toBe(201);
  expect((await api.get('/login/')).status).toBe(200);
  // The token it hands out opens the API.
  expect((await api.get('/api/status/').set('Authorization', `Token ${res.body.key}`)).status).toBe(200);
});

test('a bad token is still told apart from none', async () => {
  expect((await api.get('/api/').set('Authorization', `Token ${'0'.repeat(40)}`)).body).toEqual({ detail: 'Invalid token' });
});
