/** NetBox's IPAddress.save() stores dns_name in lower case (the `lowercase` word), on create and on change. */
import { startTestApp, type TestApp } from '../support/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

test('an IP address\'s DNS name is stored in lower case', async () => {
  const created = await t.api.post('/api/ipam/ip-addresses/').set(t.auth).send({ address: '192.0.2.10/24', dns_name: 'Host.Example.COM' });
  expect([created.status, created.body.dns_name]).toEqual([201, 'host.example.com']);
  const changed = await t.api.patch(`/api/ipam/ip-addresses/${String(created.body.id)}/`).set(t.auth).send({ dns_name: 'WWW.Example.com.' });
  expect([changed.status, changed.body.dns_name]).toEqual([200, 'www.example.com.']);
  const listed = await t.api.get('/api/ipam/ip-addresses/?dns_name=www.example.com.').set(t.auth);
  expect(listed.body.count).toBe(1);
});
