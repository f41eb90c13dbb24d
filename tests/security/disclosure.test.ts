/**
 * Finding 9 (decided and documented in docs/authentication.md): a refused delete named hidden
 * dependents in its 409, and the Host header was echoed into every absolute URL. Now the 409 names only
 * the dependents the caller may view (the others are counted), each once however many paths protect
 * it; ALLOWED_HOSTS limits the hosts served, as Django's; and URLs are https only when the connection
 * is, or a trusted proxy says so.
 */
import { startTestApp, type TestApp } from '../support/test-app';
import { apiWith } from '../support/listen';
import { grant, made, newUser } from './support';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('a refused delete names what the caller may see, each dependent once', () => {
  test('a dependent protected through two paths (its site, and its location that the site cascades to) is named once', async () => {
    const site = await made(t, '/api/dcim/sites/', { name: 'Twice', slug: 'twice' });
    const location = await made(t, '/api/dcim/locations/', { name: 'Hall', slug: 'hall', site });
    const manufacturer = await made(t, '/api/dcim/manufacturers/', { name: 'M', slug: 'm' });
    const type = await made(t, '/api/dcim/device-types/', { model: 'T', slug: 't', manufacturer });
    const role = await made(t, '/api/dcim/device-roles/', { name: 'R', slug: 'r' });
    const device = await made(t, '/api/dcim/devices/', { name: 'dev1', site, location, device_type: type, role });
    const res = await t.api.delete(`/api/dcim/sites/${site}/`).set(t.auth);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ detail: `Unable to delete object. 1 dependent objects were found: dev1 (${device})` });
  });

  test('dependents the caller may not view are counted, not named', async () => {
    const site = await made(t, '/api/dcim/sites/', { name: 'Hidden', slug: 'hidden' });
    const active = await made(t, '/api/ipam/prefixes/', { prefix: '10.9.1.0/24', site, status: 'active' });
    await made(t, '/api/ipam/prefixes/', { prefix: '10.9.2.0/24', site, status: 'reserved' });
    const u = await newUser(t);
    await grant(t, { users: [u.id], types: ['dcim.site'], actions: ['view', 'delete'] });
    const blind = await t.api.delete(`/api/dcim/sites/${site}/`).set(u.h);
    expect(blind.status).toBe(409);
    expect(blind.body).toEqual({ detail: 'Unable to delete object. 2 dependent objects were found: 2 you may not view' });
    await grant(t, { users: [u.id], types: ['ipam.prefix'], actions: ['view'], constraints: { status: 'active' } });
    const partial = await t.api.delete(`/api/dcim/sites/${site}/`).set(u.h);
    expect(partial.body).toEqual({ detail: `Unable to delete object. 2 dependent objects were found: 10.9.1.0/24 (${active}) and 1 you may not view` });
    expect(JSON.stringify(partial.body)).not.toContain('10.9.2.0');
  });
});

describe('ALLOWED_HOSTS', () => {
  test('only the hosts it names are served: exactly, or a domain and its subdomains with a leading dot', async () => {
    const api = apiWith(t, { ALLOWED_HOSTS: 'api.example.com, .example.net' });
    for (const host of ['api.example.com', 'API.example.com:8000', 'example.net', 'a.b.example.net:443']) {
      const res = await api.get('/api/status/').set('Host', host);
      expect([host, res.status]).toEqual([host, 200]);
    }
    for (const host of ['evil.example', 'api.example.com.evil.example', 'notexample.net', '', 'a b', 'x:99999999']) {
      const res = await api.get('/api/status/').set('Host', host);
      expect([host, res.status]).toEqual([host, 400]);
      expect(res.body.detail).toMatch(/^Invalid HTTP_HOST header/);
    }
  });

  test("the default ('*') serves any host, as before", async () => {
    expect((await t.api.get('/api/status/').set('Host', 'anything.example')).status).toBe(200);
  });
});

test('URLs are https only when a trusted proxy reports it', async () => {
  const proxied = apiWith(t, { TRUSTED_PROXIES: '127.0.0.1,::1' });
  const res = await proxied.get('/api/dcim/sites/?limit=1').set(t.auth).set('X-Forwarded-Proto', 'https');
  expect(res.body.results[0].url).toMatch(/^https:\/\//);
  const direct = await t.api.get('/api/dcim/sites/?limit=1').set(t.auth).set('X-Forwarded-Proto', 'https');
  expect(direct.body.results[0].url).toMatch(/^http:\/\//);
});
