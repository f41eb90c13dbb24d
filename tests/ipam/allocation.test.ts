/**
 * NetBox 3.7's allocation endpoints as generic detail actions: available-ips of prefixes and IP ranges,
 * available-prefixes, available-vlans and available-asns. GET lists free space as NetBox shapes it; POST
 * allocates one object or a list in order (201), other fields passing through, 409 when not enough remains
 * with nothing written; permissions: add on the created type, view on the parent.
 */
import { startTestApp, type TestApp } from '../support/test-app';
import { grant, newUser } from '../security/support';

type Json = Record<string, unknown>;
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

async function create(path: string, body: Json): Promise<Json> {
  const res = await t.api.post(path).set(t.auth).send(body);
  if (res.status !== 201) throw new Error(`POST ${path} ${JSON.stringify(body)} -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Json;
}
const get = async (path: string) => t.api.get(path).set(t.auth);
const post = (path: string, body: unknown) => t.api.post(path).set(t.auth).send(body as object);
const addresses = (rows: Json[]) => rows.map((r) => r.address);

describe('available-ips of a prefix', () => {
  let p: Json;
  let vrf: Json;
  beforeAll(async () => {
    vrf = await create('/api/ipam/vrfs/', { name: 'A' });
    p = await create('/api/ipam/prefixes/', { prefix: '10.1.0.0/29', vrf: vrf.id });
    await create('/api/ipam/ip-addresses/', { address: '10.1.0.2/29', vrf: vrf.id });
    // The same address in the global table does not use the VRF's space.
    await create('/api/ipam/ip-addresses/', { address: '10.1.0.3/29' });
  });

  test('GET lists free addresses one by one with the prefix mask, skipping network, broadcast and used ones', async () => {
    const r = await get(`/api/ipam/prefixes/${String(p.id)}/available-ips/`);
    expect(r.status).toBe(200);
    expect(addresses(r.body as Json[])).toEqual(['10.1.0.1/29', '10.1.0.3/29', '10.1.0.4/29', '10.1.0.5/29', '10.1.0.6/29']);
    const first = (r.body as Json[])[0]!;
    expect(Object.keys(first)).toEqual(['family', 'address', 'vrf']);
    expect(first.family).toBe(4);
    expect(first.vrf).toMatchObject({ id: vrf.id, name: 'A', display: 'A' });
    expect(addresses((await get(`/api/ipam/prefixes/${String(p.id)}/available-ips/?limit=2`)).body as Json[])).toEqual(['10.1.0.1/29', '10.1.0.3/29']);
  });

  test('POST one object: 201 with the created address, fields passing through, the VRF set from the prefix', async () => {
    const r = await post(`/api/ipam/prefixes/${String(p.id)}/available-ips/`, { description: 'first', dns_name: 'a.example.com', status: 'reserved' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ address: '10.1.0.1/29', description: 'first', dns_name: 'a.example.com', status: { value: 'reserved' }, vrf: { id: vrf.id } });
  });

  test('POST a list allocates in order; asking for more than remains is a 409 and writes nothing', async () => {
    const r = await post(`/api/ipam/prefixes/${String(p.id)}/available-ips/`, [{ description: 'x' }, { description: 'y' }]);
    expect(r.status).toBe(201);
    expect(addresses(r.body as Json[])).toEqual(['10.1.0.3/29', '10.1.0.4/29']);
    const before = ((await get('/api/ipam/ip-addresses/?limit=1')).body as { count: number }).count;
    const tooMany = await post(`/api/ipam/prefixes/${String(p.id)}/available-ips/`, [{}, {}, {}]);
    expect(tooMany.status).toBe(409);
    expect(tooMany.body).toEqual({ detail: 'Insufficient resources are available to satisfy the request' });
    expect(((await get('/api/ipam/ip-addresses/?limit=1')).body as { count: number }).count).toBe(before);
    // Bad fields are the created type's 400, naming the field; nothing is written either.
    const bad = await post(`/api/ipam/prefixes/${String(p.id)}/available-ips/`, { status: 'nonsense' });
    expect(bad.status).toBe(400);
    expect(bad.body).toHaveProperty('status');
  });

  test('a pool, /31 and /32 use every address; IPv6 skips only the subnet-router address; a /64 needs no enumeration', async () => {
    const pool = await create('/api/ipam/prefixes/', { prefix: '10.2.0.0/30', is_pool: true });
    expect(addresses((await get(`/api/ipam/prefixes/${String(pool.id)}/available-ips/`)).body as Json[])).toEqual(['10.2.0.0/30', '10.2.0.1/30', '10.2.0.2/30', '10.2.0.3/30']);
    const p31 = await create('/api/ipam/prefixes/', { prefix: '10.3.0.0/31' });
    expect(addresses((await get(`/api/ipam/prefixes/${String(p31.id)}/available-ips/`)).body as Json[])).toEqual(['10.3.0.0/31', '10.3.0.1/31']);
    const v6 = await create('/api/ipam/prefixes/', { prefix: '2001:db8:1::/64' });
    await create('/api/ipam/ip-addresses/', { address: '2001:db8:1::2/64' });
    const r = await get(`/api/ipam/prefixes/${String(v6.id)}/available-ips/?limit=3`);
    expect(r.body).toEqual([
      { family: 6, address: '2001:db8:1::1/64', vrf: null },
      { family: 6, address: '2001:db8:1::3/64', vrf: null },
      { family: 6, address: '2001:db8:1::4/64', vrf: null },
    ]);
    const made = await post(`/api/ipam/prefixes/${String(v6.id)}/available-ips/`, [{}, {}]);
    expect(addresses(made.body as Json[])).toEqual(['2001:db8:1::1/64', '2001:db8:1::3/64']);
  });

  test('a range marked utilized inside the prefix is not free; a global container sees addresses of every VRF', async () => {
    const p2 = await create('/api/ipam/prefixes/', { prefix: '10.4.0.0/28' });
    await create('/api/ipam/ip-ranges/', { start_address: '10.4.0.1/28', end_address: '10.4.0.10/28', mark_utilized: true });
    expect(addresses((await get(`/api/ipam/prefixes/${String(p2.id)}/available-ips/`)).body as Json[])).toEqual(['10.4.0.11/28', '10.4.0.12/28', '10.4.0.13/28', '10.4.0.14/28']);
    const c = await create('/api/ipam/prefixes/', { prefix: '10.1.0.0/30', status: 'container' });
    // The /30's usable addresses, 10.1.0.1 and 10.1.0.2, are used in VRF A: a global container counts them.
    expect(addresses((await get(`/api/ipam/prefixes/${String(c.id)}/available-ips/`)).body as Json[])).toEqual([]);
  });
});

describe('available-ips of an IP range', () => {
  test('every address from start to end, with the range mask', async () => {
    const r = await create('/api/ipam/ip-ranges/', { start_address: '192.0.2.10/24', end_address: '192.0.2.13/24' });
    await create('/api/ipam/ip-addresses/', { address: '192.0.2.11/24' });
    const free = await get(`/api/ipam/ip-ranges/${String(r.id)}/available-ips/`);
    expect(addresses(free.body as Json[])).toEqual(['192.0.2.10/24', '192.0.2.12/24', '192.0.2.13/24']);
    const made = await post(`/api/ipam/ip-ranges/${String(r.id)}/available-ips/`, [{}, {}, {}]);
    expect(made.status).toBe(201);
    expect((await post(`/api/ipam/ip-ranges/${String(r.id)}/available-ips/`, {})).status).toBe(409);
  });
});

describe('available-prefixes', () => {
  test('GET lists the largest free networks; POST takes prefix_length, in order, as NetBox', async () => {
    const parent = await create('/api/ipam/prefixes/', { prefix: '10.50.0.0/24', status: 'container' });
    await create('/api/ipam/prefixes/', { prefix: '10.50.0.64/26' });
    const free = await get(`/api/ipam/prefixes/${String(parent.id)}/available-prefixes/`);
    expect(free.body).toEqual([
      { family: 4, prefix: '10.50.0.0/26', vrf: null },
      { family: 4, prefix: '10.50.0.128/25', vrf: null },
    ]);
    const one = await post(`/api/ipam/prefixes/${String(parent.id)}/available-prefixes/`, { prefix_length: 28, description: 'net', status: 'reserved' });
    expect(one.status).toBe(201);
    expect(one.body).toMatchObject({ prefix: '10.50.0.0/28', description: 'net', status: { value: 'reserved' } });
    const two = await post(`/api/ipam/prefixes/${String(parent.id)}/available-prefixes/`, [{ prefix_length: 25 }, { prefix_length: 28 }]);
    expect((two.body as Json[]).map((x) => x.prefix)).toEqual(['10.50.0.128/25', '10.50.0.16/28']);
    expect((await post(`/api/ipam/prefixes/${String(parent.id)}/available-prefixes/`, { prefix_length: 24 })).status).toBe(409);
    const missing = await post(`/api/ipam/prefixes/${String(parent.id)}/available-prefixes/`, { description: 'no length' });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ prefix_length: ['this field can not be missing'] });
  });
});

describe('available-vlans and available-asns', () => {
  test('VLAN IDs within the group min and max, the group set on created VLANs', async () => {
    const g = await create('/api/ipam/vlan-groups/', { name: 'G', slug: 'g', min_vid: 100, max_vid: 103 });
    await create('/api/ipam/vlans/', { name: 'v101', vid: 101, group: g.id });
    const free = await get(`/api/ipam/vlan-groups/${String(g.id)}/available-vlans/`);
    expect((free.body as Json[]).map((x) => x.vid)).toEqual([100, 102, 103]);
    expect((free.body as Json[])[0]).toMatchObject({ vid: 100, group: { id: g.id, name: 'G', slug: 'g' } });
    const made = await post(`/api/ipam/vlan-groups/${String(g.id)}/available-vlans/`, [{ name: 'a' }, { name: 'b' }]);
    expect(made.status).toBe(201);
    expect((made.body as Json[]).map((x) => [x.vid, (x.group as Json).id, x.name])).toEqual([[100, g.id, 'a'], [102, g.id, 'b']]);
    expect((await post(`/api/ipam/vlan-groups/${String(g.id)}/available-vlans/`, [{ name: 'c' }, { name: 'd' }])).status).toBe(409);
    // utilization as NetBox 3.7 shows it: the VLANs as a percentage of the VID range, two places, a string.
    expect(((await get(`/api/ipam/vlan-groups/${String(g.id)}/`)).body as Json).utilization).toBe('75.00');
    const listed = ((await get('/api/ipam/vlan-groups/?slug=g')).body as { results: Json[] }).results;
    expect(listed.map((x) => [x.vlan_count, x.utilization])).toEqual([[3, '75.00']]);
  });

  test('ASNs within the range, the RIR set from it; a 32-bit range is gaps, not a list', async () => {
    const rir = await create('/api/ipam/rirs/', { name: 'R', slug: 'r' });
    const range = await create('/api/ipam/asn-ranges/', { name: 'big', slug: 'big', rir: rir.id, start: 4200000000, end: 4294967294 });
    await create('/api/ipam/asns/', { asn: 4200000001, rir: rir.id });
    const free = await get(`/api/ipam/asn-ranges/${String(range.id)}/available-asns/?limit=3`);
    expect((free.body as Json[]).map((x) => x.asn)).toEqual([4200000000, 4200000002, 4200000003]);
    expect((free.body as Json[])[0]).toMatchObject({ rir: { id: rir.id, name: 'R' } });
    const made = await post(`/api/ipam/asn-ranges/${String(range.id)}/available-asns/`, { description: 'peer' });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ asn: 4200000000, rir: { id: rir.id }, description: 'peer', display: 'AS4200000000 (64086.59904)' });
  });
});

describe('permissions', () => {
  test('a user needs view on the parent and add on the created type, within its constraints', async () => {
    const p = await create('/api/ipam/prefixes/', { prefix: '10.60.0.0/29' });
    const anon = await t.api.get(`/api/ipam/prefixes/${String(p.id)}/available-ips/`);
    expect(anon.status).toBe(403);
    expect((await get('/api/ipam/prefixes/999999/available-ips/')).status).toBe(404);
    const user = await newUser(t);
    const url = `/api/ipam/prefixes/${String(p.id)}/available-ips/`;
    // No view on prefixes: the prefix is not there for this user.
    expect((await t.api.get(url).set(user.h)).status).toBe(403);
    await grant(t, { users: [user.id], types: ['ipam.prefix'], actions: ['view'] });
    expect((await t.api.get(url).set(user.h)).status).toBe(200);
    // View on the prefix, no add on addresses: refused, nothing written.
    const refused = await t.api.post(url).set(user.h).send({});
    expect(refused.status).toBe(403);
    await grant(t, { users: [user.id], types: ['ipam.ipaddress'], actions: ['add', 'view'] });
    const ok = await t.api.post(url).set(user.h).send({ description: 'mine' });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ address: '10.60.0.1/29', description: 'mine' });
    // Add constrained to other addresses: the created one falls outside, so the allocation is refused whole.
    const other = await newUser(t);
    await grant(t, { users: [other.id], types: ['ipam.prefix'], actions: ['view'] });
    await grant(t, { users: [other.id], types: ['ipam.ipaddress'], actions: ['add'], constraints: { description: 'allowed' } });
    expect((await t.api.post(url).set(other.h).send({ description: 'not allowed' })).status).toBe(403);
    expect((await t.api.post(url).set(other.h).send({ description: 'allowed' })).status).toBe(201);
  });
});
