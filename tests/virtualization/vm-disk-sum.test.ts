/**
 * A virtual machine's disk as NetBox 3.7 keeps it (the `sum_of` word): the total size of its virtual
 * disks, set by every write of a disk (created, resized, moved to another machine, deleted: null when
 * none is left), filled when a change writes it null, refused when a change gives another value.
 */
import { startTestApp, type TestApp } from '../support/test-app';

type Json = Record<string, unknown>;
let t: TestApp;
let cluster: number;
let n = 0;

async function made(path: string, body: unknown): Promise<Json> {
  const res = await t.api.post(path).set(t.auth).send(body as object);
  if (res.status !== 201) throw new Error(`POST ${path} -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Json;
}
async function patched(path: string, body: unknown): Promise<Json> {
  const res = await t.api.patch(path).set(t.auth).send(body as object);
  if (res.status !== 200) throw new Error(`PATCH ${path} -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Json;
}
const vmPath = (id: unknown) => `/api/virtualization/virtual-machines/${String(id)}/`;
const diskOf = async (id: unknown) => ((await t.api.get(vmPath(id)).set(t.auth)).body as Json).disk;
const machine = async (extra: Json = {}) => (await made('/api/virtualization/virtual-machines/', { name: `vm${++n}`, cluster, ...extra })).id as number;
const disk = async (vm: number, size: number) => (await made('/api/virtualization/virtual-disks/', { virtual_machine: vm, name: `d${++n}`, size })).id as number;

beforeAll(async () => {
  t = await startTestApp();
  const type = (await made('/api/virtualization/cluster-types/', { name: 'K', slug: 'k' })).id;
  cluster = (await made('/api/virtualization/clusters/', { name: 'C', type })).id as number;
});
afterAll(async () => {
  await t.close();
});

test('disks created, one at a time or in bulk, resized and deleted set the machine\'s disk to their total; none left is null', async () => {
  const vm = await machine({ disk: 7 });
  const a = await disk(vm, 100);
  expect(await diskOf(vm)).toBe(100);
  await made('/api/virtualization/virtual-disks/', [{ virtual_machine: vm, name: 'b1', size: 20 }, { virtual_machine: vm, name: 'b2', size: 5 }]);
  expect(await diskOf(vm)).toBe(125);
  await patched(`/api/virtualization/virtual-disks/${a}/`, { size: 50 });
  expect(await diskOf(vm)).toBe(75);
  const ids = ((await t.api.get(`/api/virtualization/virtual-disks/?virtual_machine_id=${vm}`).set(t.auth)).body as { results: Json[] }).results.map((d) => ({ id: d.id }));
  expect((await t.api.delete('/api/virtualization/virtual-disks/').set(t.auth).send(ids)).status).toBe(204);
  expect(await diskOf(vm)).toBeNull();
});

test('a disk moved to another machine leaves the total of each', async () => {
  const one = await machine();
  const two = await machine();
  const d = await disk(one, 30);
  await disk(one, 12);
  await patched(`/api/virtualization/virtual-disks/${d}/`, { virtual_machine: two });
  expect([await diskOf(one), await diskOf(two)]).toEqual([12, 30]);
});

test('with disks, a change giving another disk size is refused naming disk; null is filled with the total; the total is accepted', async () => {
  const vm = await machine();
  await disk(vm, 40);
  await disk(vm, 2);
  const res = await t.api.patch(vmPath(vm)).set(t.auth).send({ disk: 50 });
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ disk: ['The specified disk size (50) must match the aggregate size of assigned virtual disks (42).'] });
  expect((await patched(vmPath(vm), { disk: null })).disk).toBe(42);
  expect((await patched(vmPath(vm), { disk: 42, description: 'x' })).disk).toBe(42);
});

test('without disks, the disk is what is written', async () => {
  const vm = await machine({ disk: 9 });
  expect((await patched(vmPath(vm), { disk: 11 })).disk).toBe(11);
});

test('the machine\'s disk set by a disk write is in the change log as an update of the machine, after its creation', async () => {
  const vm = await machine();
  await disk(vm, 8);
  const res = await t.api.get(`/api/extras/object-changes/?changed_object_type=virtualization.virtualmachine&changed_object_id=${vm}&ordering=id`).set(t.auth);
  const changes = (res.body as { results: Json[] }).results.map((c) => [(c.action as Json).value, (c.postchange_data as Json).disk]);
  expect(changes).toEqual([['create', null], ['update', 8]]);
});

test('disks whose total would pass the largest disk size are refused naming size, and nothing is written', async () => {
  const vm = await machine();
  await disk(vm, 2147483000);
  const res = await t.api.post('/api/virtualization/virtual-disks/').set(t.auth).send({ virtual_machine: vm, name: 'over', size: 1000 });
  expect(res.status).toBe(400);
  expect(Object.keys(res.body as Json)).toEqual(['size']);
  const bulk = await t.api.post('/api/virtualization/virtual-disks/').set(t.auth)
    .send([{ virtual_machine: vm, name: 'ok', size: 1 }, { virtual_machine: vm, name: 'over2', size: 1000 }]);
  expect(bulk.status).toBe(400);
  expect(await diskOf(vm)).toBe(2147483000);
});
