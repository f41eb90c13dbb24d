/**
 * NetBox 3.7's unique IP space (Prefix.clean, IPAddress.clean): a duplicate prefix, or an IP address
 * repeating a host under any mask, is refused in a VRF that enforces unique space, and in the global table
 * while ENFORCE_GLOBAL_UNIQUE holds (its default). Addresses of the exempt roles (anycast, vip, vrrp,
 * hsrp, glbp, carp) may repeat among themselves only.
 */
import { startTestApp, type TestApp } from '../support/test-app';

type Json = Record<string, unknown>;

async function create(t: TestApp, path: string, body: Json): Promise<Json> {
  const res = await t.api.post(path).set(t.auth).send(body);
  if (res.status !== 201) throw new Error(`POST ${path} ${JSON.stringify(body)} -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Json;
}

describe('with ENFORCE_GLOBAL_UNIQUE at its default', () => {
  let t: TestApp;
  let strict: Json;
  let loose: Json;
  beforeAll(async () => {
    t = await startTestApp();
    strict = await create(t, '/api/ipam/vrfs/', { name: 'strict', enforce_unique: true });
    loose = await create(t, '/api/ipam/vrfs/', { name: 'loose', enforce_unique: false });
  });
  afterAll(async () => {
    await t.close();
  });
  const post = (path: string, body: unknown) => t.api.post(path).set(t.auth).send(body as object);

  test('the same host under another mask is a duplicate, in the global table and in an enforcing VRF', async () => {
    await create(t, '/api/ipam/ip-addresses/', { address: '10.0.0.1/24' });
    const global = await post('/api/ipam/ip-addresses/', { address: '10.0.0.1/16' });
    expect(global.status).toBe(400);
    expect(global.body).toEqual({ address: ['Duplicate IP address found in global table: 10.0.0.1/24'] });

    await create(t, '/api/ipam/ip-addresses/', { address: '10.0.0.1/24', vrf: strict.id });
    const inVrf = await post('/api/ipam/ip-addresses/', { address: '10.0.0.1/32', vrf: strict.id });
    expect(inVrf.status).toBe(400);
    expect(inVrf.body).toEqual({ address: ['Duplicate IP address found in VRF strict: 10.0.0.1/24'] });
  });

  test('a VRF without enforce_unique takes duplicates', async () => {
    await create(t, '/api/ipam/ip-addresses/', { address: '10.9.0.1/24', vrf: loose.id });
    await create(t, '/api/ipam/ip-addresses/', { address: '10.9.0.1/24', vrf: loose.id });
    await create(t, '/api/ipam/prefixes/', { prefix: '10.9.0.0/24', vrf: loose.id });
    await create(t, '/api/ipam/prefixes/', { prefix: '10.9.0.0/24', vrf: loose.id });
  });

  test('exempt roles repeat among themselves, never beside an address of another role', async () => {
    await create(t, '/api/ipam/ip-addresses/', { address: '10.1.0.1/24', role: 'vip' });
    await create(t, '/api/ipam/ip-addresses/', { address: '10.1.0.1/24', role: 'vrrp' });
    const plain = await post('/api/ipam/ip-addresses/', { address: '10.1.0.1/24' });
    expect(plain.body).toEqual({ address: ['Duplicate IP address found in global table: 10.1.0.1/24'] });

    await create(t, '/api/ipam/ip-addresses/', { address: '10.1.0.2/24', role: 'loopback' });
    const anycast = await post('/api/ipam/ip-addresses/', { address: '10.1.0.2/24', role: 'anycast' });
    expect(anycast.status).toBe(400);
    expect(anycast.body).toEqual({ address: ['Duplicate IP address found in global table: 10.1.0.2/24'] });
  });

  test('a change into a duplicate (address, VRF or role) is refused', async () => {
    await create(t, '/api/ipam/ip-addresses/', { address: '10.2.0.1/24', vrf: strict.id, role: 'hsrp' });
    const other = await create(t, '/api/ipam/ip-addresses/', { address: '10.2.0.1/24', vrf: strict.id, role: 'glbp' });
    const role = await t.api.patch(`/api/ipam/ip-addresses/${String(other.id)}/`).set(t.auth).send({ role: 'secondary' });
    expect(role.status).toBe(400);
    expect(role.body).toEqual({ address: ['Duplicate IP address found in VRF strict: 10.2.0.1/24'] });

    const moved = await create(t, '/api/ipam/ip-addresses/', { address: '10.2.0.1/24', vrf: loose.id });
    const vrf = await t.api.patch(`/api/ipam/ip-addresses/${String(moved.id)}/`).set(t.auth).send({ vrf: strict.id });
    expect(vrf.body).toEqual({ address: ['Duplicate IP address found in VRF strict: 10.2.0.1/24'] });

    const elsewhere = await create(t, '/api/ipam/ip-addresses/', { address: '10.2.0.9/24', vrf: strict.id });
    const address = await t.api.patch(`/api/ipam/ip-addresses/${String(elsewhere.id)}/`).set(t.auth).send({ address: '10.2.0.1/25' });
    expect(address.status).toBe(400);
    expect(address.body).toEqual({ address: ['Duplicate IP address found in VRF strict: 10.2.0.1/24'] });
    // Its own row is no duplicate of itself.
    await t.api.patch(`/api/ipam/ip-addresses/${String(elsewhere.id)}/`).set(t.auth).send({ description: 'x', address: '10.2.0.9/25' }).expect(200);
  });

  test('duplicates inside one bulk create are refused, and nothing of it is written', async () => {
    const res = await post('/api/ipam/ip-addresses/', [{ address: '10.3.0.1/24' }, { address: '10.3.0.2/24' }, { address: '10.3.0.1/25' }]);
    expect(res.status).toBe(400);
    // As NetBox, saving one after the other: the later copy is the duplicate.
    expect(res.body).toEqual([{}, {}, { address: ['Duplicate IP address found in global table: 10.3.0.1/24'] }]);
    const left = await t.api.get('/api/ipam/ip-addresses/?parent=10.3.0.0/16').set(t.auth);
    expect((left.body as { count: number }).count).toBe(0);
  });

  test('a prefix repeats only with its mask', async () => {
    await create(t, '/api/ipam/prefixes/', { prefix: '10.4.0.0/16' });
    await create(t, '/api/ipam/prefixes/', { prefix: '10.4.0.0/24' });
    const same = await post('/api/ipam/prefixes/', { prefix: '10.4.0.0/16' });
    expect(same.status).toBe(400);
    expect(same.body).toEqual({ prefix: ['Duplicate prefix found in global table: 10.4.0.0/16'] });
    await create(t, '/api/ipam/prefixes/', { prefix: '10.4.0.0/16', vrf: strict.id });
    const inVrf = await post('/api/ipam/prefixes/', { prefix: '10.4.0.0/16', vrf: strict.id });
    expect(inVrf.body).toEqual({ prefix: ['Duplicate prefix found in VRF strict: 10.4.0.0/16'] });
    const bulk = await post('/api/ipam/prefixes/', [{ prefix: '10.5.0.0/16' }, { prefix: '10.5.0.0/16' }]);
    expect(bulk.status).toBe(400);
    expect(bulk.body).toEqual([{}, { prefix: ['Duplicate prefix found in global table: 10.5.0.0/16'] }]);
  });
});

describe('with ENFORCE_GLOBAL_UNIQUE=false', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { ENFORCE_GLOBAL_UNIQUE: 'false' } });
  });
  afterAll(async () => {
    await t.close();
  });

  test('the global table takes duplicates; an enforcing VRF still refuses them', async () => {
    await create(t, '/api/ipam/ip-addresses/', { address: '10.0.0.1/24' });
    await create(t, '/api/ipam/ip-addresses/', { address: '10.0.0.1/24' });
    await create(t, '/api/ipam/prefixes/', { prefix: '10.0.0.0/24' });
    await create(t, '/api/ipam/prefixes/', { prefix: '10.0.0.0/24' });
    const vrf = await create(t, '/api/ipam/vrfs/', { name: 'v' });
    await create(t, '/api/ipam/prefixes/', { prefix: '10.0.0.0/24', vrf: vrf.id });
    const res = await t.api.post('/api/ipam/prefixes/').set(t.auth).send({ prefix: '10.0.0.0/24', vrf: vrf.id });
    expect(res.body).toEqual({ prefix: ['Duplicate prefix found in VRF v: 10.0.0.0/24'] });
  });
});
