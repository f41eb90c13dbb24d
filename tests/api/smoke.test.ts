import { startTestApp, type TestApp } from '../support/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

test('creates a site and reads it back', async () => {
  const created = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'DC 1', slug: 'dc1' });
  expect(created.status).toBe(201);
  expect(created.headers.location).toBe(`${created.body.url}`);
  const got = await t.api.get(`/api/dcim/sites/${created.body.id}/`).set(t.auth);
  expect(got.status).toBe(200);
  expect(got.body.status).toEqual({ value: 'active', label: 'Active' });
});
