/**
 * Endpoints of an application that are not object types (schema/applications.json "views"): NetBox's
 * /api/plugins/installed-plugins/, answered for administrators with the plugins installed (none).
 */
import { startTestApp, type TestApp } from '../support/test-app';

let t: TestApp;
let plainUser: string;

beforeAll(async () => {
  t = await startTestApp();
  plainUser = await t.makeToken();
});
afterAll(async () => {
  await t.close();
});

describe('/api/plugins/installed-plugins/', () => {
  test('the plugins root lists it', async () => {
    const res = await t.api.get('/api/plugins/');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body as object)).toEqual(['installed-plugins']);
    expect((res.body as Record<string, string>)['installed-plugins']).toMatch(/^http:\/\/[^/]+\/api\/plugins\/installed-plugins\/$/);
  });

  test('a superuser gets the installed plugins: none, as a plain list', async () => {
    const res = await t.api.get('/api/plugins/installed-plugins/').set(t.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  test('anyone else is refused, as NetBox refuses non-administrators', async () => {
    const anonymous = await t.api.get('/api/plugins/installed-plugins/');
    expect(anonymous.status).toBe(403);
    expect(anonymous.body).toEqual({ detail: 'Authentication credentials were not provided.' });
    const user = await t.api.get('/api/plugins/installed-plugins/').set({ Authorization: `Token ${plainUser}` });
    expect(user.status).toBe(403);
    expect(user.body).toEqual({ detail: 'You do not have permission to perform this action.' });
  });

  test('it is read-only and has no sub-paths', async () => {
    const post = await t.api.post('/api/plugins/installed-plugins/').set(t.auth).send({});
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect((await t.api.get('/api/plugins/installed-plugins/1/').set(t.auth)).status).toBe(404);
    expect((await t.api.get('/api/plugins/nothing/').set(t.auth)).status).toBe(404);
  });

  test('the OpenAPI document describes it', async () => {
    const doc = await t.api.get('/api/schema/?format=json');
    expect(doc.status).toBe(200);
    const item = (doc.body as { paths: Record<string, { get?: { operationId: string } }> }).paths['/api/plugins/installed-plugins/'];
    expect(item?.get?.operationId).toBe('plugins_installed_plugins_list');
  });
});

describe('detail paths', () => {
  test('a segment after an object that no detail action names is 404', async () => {
    const site = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'Views Site', slug: 'views-site' });
    expect(site.status).toBe(201);
    const res = await t.api.get(`/api/dcim/sites/${site.body.id as number}/nothing/`).set(t.auth);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Not found.' });
  });
});
