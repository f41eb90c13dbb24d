import { startTestApp, type TestApp } from '../support/test-app';

/**
 * The API version in the Accept header, as NetBox's DRF AcceptHeaderVersioning (ALLOWED_VERSIONS ['3.7']):
 * `version=3.7` or no version is served; any other is a 406 with DRF's message, before authentication.
 * The version read is that of the Accept entry content negotiation picks (the most specific one).
 */

let t: TestApp;
const INVALID = { detail: 'Invalid version in "Accept" header.' };

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

test('version 3.7, or none, is served', async () => {
  for (const accept of [undefined, 'application/json', 'application/json; version=3.7', 'application/json;version="3.7"', 'application/json; Version=3.7; indent=2', '*/*; version=3.7']) {
    const req = t.api.get('/api/dcim/sites/').set(t.auth);
    const res = await (accept === undefined ? req : req.set('Accept', accept));
    expect([accept, res.status, res.headers['api-version']]).toEqual([accept, 200, '3.7']);
  }
});

test('another version is a 406 with DRF\'s message, on every kind of endpoint, with or without a token', async () => {
  for (const accept of ['application/json; version=3.6', 'application/json; version=3.7.8', 'application/json; version=', '*/*; version=3.6', 'application/*; version=4.0']) {
    const res = await t.api.get('/api/dcim/sites/').set(t.auth).set('Accept', accept);
    expect([accept, res.status, res.body]).toEqual([accept, 406, INVALID]);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  }
  for (const path of ['/api/', '/api/status/', '/api/schema/', '/api/dcim/sites/1/', '/api/ipam/prefixes/']) {
    const res = await t.api.get(path).set('Accept', 'application/json; version=3.6');
    expect([path, res.status, res.body]).toEqual([path, 406, INVALID]);
  }
  const write = await t.api.post('/api/dcim/sites/').set(t.auth).set('Accept', 'application/json; version=3.6').send({ name: 'x', slug: 'x' });
  expect([write.status, write.body]).toEqual([406, INVALID]);
  expect((await t.api.get('/api/dcim/sites/').set(t.auth)).body.count).toBe(0);
});

test('the most specific Accept entry carries the version, JSON before HTML at the same level', async () => {
  const status = async (accept: string) => (await t.api.get('/api/status/').set('Accept', accept)).status;
  // application/json without parameters outranks */* with a version: no version is asked.
  expect(await status('*/*; version=3.6, application/json')).toBe(200);
  expect(await status('application/json; version=3.6, */*')).toBe(406);
  expect(await status('text/html; version=3.6, application/json; version=3.7')).toBe(200);
  expect(await status('text/html; version=3.7, application/json; version=3.6')).toBe(406);
});
