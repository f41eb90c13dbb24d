/**
 * Compatibility defects found by trying real client behaviour: NetBox's serializers accept numeric
 * strings for integers and the usual boolean spellings (Ansible's templated values arrive as strings),
 * ignore keys they do not know, and merge a partial update of half a generic relation with the stored
 * other half. (Own tokens, limit=abc and the 409 listing each dependent once are tested beside their
 * subjects: tests/auth/permissions, tests/api/pagination, tests/security/disclosure.)
 */
import { startTestApp, type TestApp } from '../support/test-app';
import { made } from './support';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

test('integers, numbers, numeric choices and booleans written as strings are read as NetBox reads them', async () => {
  const group = await made(t, '/api/ipam/vlan-groups/', { name: 'G', slug: 'g', min_vid: '10', max_vid: '200.0' });
  const vlan = await t.api.post('/api/ipam/vlans/').set(t.auth).send({ vid: '100', name: 'v100', group: String(group) });
  expect([vlan.status, vlan.body.vid, vlan.body.group?.id]).toEqual([201, 100, group]);
  const site = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'S', slug: 's', latitude: '52.37', longitude: ' 4.89 ' });
  expect([site.status, site.body.latitude, site.body.longitude]).toEqual([201, 52.37, 4.89]);
  for (const [i, [written, read]] of ([['True', true], ['false', false], ['1', true], ['off', false], [1, true], ['yes', true]] as const).entries()) {
    const role = await t.api.post('/api/dcim/device-roles/').set(t.auth).send({ name: `R ${i}`, slug: `r-${i}`, vm_role: written });
    expect([written, role.status, role.body.vm_role]).toEqual([written, 201, read]);
  }
  const rack = await t.api.post('/api/dcim/racks/').set(t.auth).send({ name: 'Rack', site: site.body.id, width: '23', u_height: '42' });
  expect([rack.status, rack.body.width?.value, rack.body.u_height]).toEqual([201, 23, 42]);
});

test('what DRF refuses stays refused: "12abc", 1.5 and "maybe"', async () => {
  expect((await t.api.post('/api/ipam/vlans/').set(t.auth).send({ vid: '12abc', name: 'x' })).body).toEqual({ vid: ['A valid integer is required.'] });
  expect((await t.api.post('/api/ipam/vlans/').set(t.auth).send({ vid: 1.5, name: 'x' })).body).toEqual({ vid: ['A valid integer is required.'] });
  expect((await t.api.post('/api/dcim/device-roles/').set(t.auth).send({ name: 'Q', slug: 'q', vm_role: 'maybe' })).body).toEqual({ vm_role: ['Must be a valid boolean.'] });
});

test('a number written for a text field is taken as its text, as DRF CharField does', async () => {
  const res = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'Numbers', slug: 'numbers', facility: 42 });
  expect([res.status, res.body.facility]).toEqual([201, '42']);
});

test('unknown keys in a write body are ignored, single and bulk', async () => {
  const one = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'U', slug: 'u', no_such_field: 1, __proto__x: 2 });
  expect(one.status).toBe(201);
  expect(one.body).not.toHaveProperty('no_such_field');
  const bulk = await t.api.post('/api/dcim/sites/').set(t.auth).send([{ name: 'U2', slug: 'u2', colour: 'red' }]);
  expect(bulk.status).toBe(201);
});

test('PATCH of one half of a generic relation keeps the stored other half', async () => {
  const site = await made(t, '/api/dcim/sites/', { name: 'G1', slug: 'g1' });
  const other = await made(t, '/api/dcim/sites/', { name: 'G2', slug: 'g2' });
  const region = await made(t, '/api/dcim/regions/', { name: 'R', slug: 'r' });
  const contact = await made(t, '/api/tenancy/contacts/', { name: 'C' });
  const role = await made(t, '/api/tenancy/contact-roles/', { name: 'Ro', slug: 'ro' });
  const a = await made(t, '/api/tenancy/contact-assignments/', { content_type: 'dcim.site', object_id: site, contact, role });
  const moved = await t.api.patch(`/api/tenancy/contact-assignments/${a}/`).set(t.auth).send({ object_id: other });
  expect([moved.status, moved.body.content_type, moved.body.object_id, moved.body.object.display]).toEqual([200, 'dcim.site', other, 'G2']);
  const retyped = await t.api.patch(`/api/tenancy/contact-assignments/${a}/`).set(t.auth).send({ content_type: 'dcim.region' });
  // The stored id is kept and now names a region: one with that id exists or the id is refused, by name.
  const regionExists = (await t.api.get(`/api/dcim/regions/${other}/`).set(t.auth)).status === 200;
  expect([retyped.status, regionExists ? null : Object.keys(retyped.body)]).toEqual(regionExists ? [200, null] : [400, ['object_id']]);
  const both = await t.api.patch(`/api/tenancy/contact-assignments/${a}/`).set(t.auth).send({ content_type: 'dcim.region', object_id: region });
  expect([both.status, both.body.object.display]).toEqual([200, 'R']);
  const asString = await t.api.patch(`/api/tenancy/contact-assignments/${a}/`).set(t.auth).send({ object_id: String(region) });
  expect(asString.status).toBe(200);
});
