/**
 * NetBox's VirtualMachine.save() fills the site from the cluster when none is given (the `filled_from`
 * word), and VirtualMachine.clean() refuses a site other than the cluster's, on create and on change.
 */
import { startTestApp, type TestApp } from '../support/test-app';

type Json = Record<string, unknown>;
let t: TestApp;
let site: Json;
let elsewhere: Json;
let cluster: Json;
let siteless: Json;

async function made(path: string, body: Json): Promise<Json> {
  const res = await t.api.post(path).set(t.auth).send(body);
  if (res.status !== 201) throw new Error(`POST ${path} -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Json;
}
const siteOf = (vm: Json) => (vm.site === null ? null : (vm.site as Json).id);

beforeAll(async () => {
  t = await startTestApp();
  site = await made('/api/dcim/sites/', { name: 'DC1', slug: 'dc1' });
  elsewhere = await made('/api/dcim/sites/', { name: 'DC2', slug: 'dc2' });
  const type = await made('/api/virtualization/cluster-types/', { name: 'KVM', slug: 'kvm' });
  cluster = await made('/api/virtualization/clusters/', { name: 'C1', type: type.id, site: site.id });
  siteless = await made('/api/virtualization/clusters/', { name: 'C2', type: type.id });
});
afterAll(async () => {
  await t.close();
});

test('a VM created in a cluster without a site takes the cluster\'s site; a cluster without one leaves it null', async () => {
  const vm = await made('/api/virtualization/virtual-machines/', { name: 'vm1', cluster: cluster.id });
  expect(siteOf(vm)).toBe(site.id);
  const again = (await t.api.get(`/api/virtualization/virtual-machines/${String(vm.id)}/`).set(t.auth)).body as Json;
  expect(siteOf(again)).toBe(site.id);
  expect(siteOf(await made('/api/virtualization/virtual-machines/', { name: 'vm2', cluster: siteless.id }))).toBeNull();
  // In a bulk create too, each element from its own cluster.
  const bulk = await t.api.post('/api/virtualization/virtual-machines/').set(t.auth).send([{ name: 'vm3', cluster: cluster.id }, { name: 'vm4', cluster: siteless.id }]);
  expect(bulk.status).toBe(201);
  expect((bulk.body as Json[]).map(siteOf)).toEqual([site.id, null]);
});

test('a site other than the cluster\'s is refused with NetBox\'s message', async () => {
  const res = await t.api.post('/api/virtualization/virtual-machines/').set(t.auth).send({ name: 'vm5', cluster: cluster.id, site: elsewhere.id });
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ cluster: ['The selected cluster (C1) is not assigned to this site (DC2).'] });
});

test('a change moving a site-less VM into a cluster, or clearing its site, fills the site again', async () => {
  const vm = await made('/api/virtualization/virtual-machines/', { name: 'vm6', cluster: siteless.id });
  const moved = await t.api.patch(`/api/virtualization/virtual-machines/${String(vm.id)}/`).set(t.auth).send({ cluster: cluster.id });
  expect(moved.status).toBe(200);
  expect(siteOf(moved.body as Json)).toBe(site.id);
  const cleared = await t.api.patch(`/api/virtualization/virtual-machines/${String(vm.id)}/`).set(t.auth).send({ site: null });
  expect(siteOf(cleared.body as Json)).toBe(site.id);
  // A change of anything else leaves the site alone.
  const renamed = await t.api.patch(`/api/virtualization/virtual-machines/${String(vm.id)}/`).set(t.auth).send({ name: 'vm6b' });
  expect(siteOf(renamed.body as Json)).toBe(site.id);
});
