import { startTestApp, TEST_DATABASE_URL, type TestApp } from '../support/test-app';
import { startCluster, type Cluster, type Reply } from './support/cluster';
import { Fixtures } from './support/fixtures';

/**
 * A tree that already holds a cycle (written with raw SQL, as a bug or a hand edit could leave it) must
 * not make reads hang: every recursive walk over a tree carries a cycle guard and a depth bound. The
 * reads whose walks had neither: the regions' cumulative site counts (list and detail) and the ancestor
 * walk of available_on. On PostgreSQL the reads go through an instance whose statements time out, so a
 * hang on old code ends; on the embedded database through the test app.
 */

let t: TestApp;
let cluster: Cluster | undefined;
let send: (method: string, path: string, body?: unknown) => Promise<Reply>;
let f: Fixtures;
const region: Record<'a' | 'b' | 'c', number> = { a: 0, b: 0, c: 0 };
let site = 0;
let device = 0;

beforeAll(async () => {
  if (TEST_DATABASE_URL) {
    cluster = await startCluster(2);
    t = cluster.t;
    const one = cluster.instances[0];
    send = (method, path, body) => one.request(method, path, t.auth, body);
  } else {
    t = await startTestApp();
    send = async (method, path, body) => {
      const res = await t.api[method.toLowerCase() as 'get'](path).set(t.auth).send(body as object);
      return { status: res.status, body: res.body as unknown };
    };
  }
  f = new Fixtures(t);
  region.a = await f.region();
  region.b = await f.post('/api/dcim/regions/', { name: 'Child B', slug: 'child-b', parent: region.a });
  region.c = await f.post('/api/dcim/regions/', { name: 'Child C', slug: 'child-c', parent: region.b });
  site = await f.post('/api/dcim/sites/', { name: 'Cyclic', slug: 'cyclic', region: region.c });
  device = await f.device(site);
  const group = await f.post('/api/ipam/vlan-groups/', { name: 'Scoped', slug: 'scoped', scope_type: 'dcim.region', scope_id: region.a });
  await f.post('/api/ipam/vlans/', { vid: 10, name: 'In A', group });
  // A VLAN scoped elsewhere: deciding that it is not available walks all of the device's region's ancestors.
  const elsewhere = await f.post('/api/ipam/vlan-groups/', { name: 'Elsewhere', slug: 'elsewhere', scope_type: 'dcim.region', scope_id: await f.region() });
  await f.post('/api/ipam/vlans/', { vid: 20, name: 'Elsewhere', group: elsewhere });
  // A -> C -> B -> A: a cycle no API write can make.
  await t.knex.raw(`UPDATE "dcim_region" SET "parent_id" = ? WHERE "id" = ?`, [region.c, region.a]);
});
afterAll(async () => {
  if (cluster) await cluster.close();
  else await t.close();
});

describe('reading a tree that holds a cycle', () => {
  it('lists and shows the regions, with depths and cumulative site counts', async () => {
    const list = await send('GET', '/api/dcim/regions/?limit=0');
    expect(list.status).toBe(200);
    const detail = await send('GET', `/api/dcim/regions/${region.a}/`);
    expect(detail).toEqual({ status: 200, body: expect.objectContaining({ id: region.a, site_count: 1 }) });
    const brief = await send('GET', `/api/dcim/regions/?brief=1&id=${region.b}`);
    expect(brief).toEqual({ status: 200, body: expect.objectContaining({ count: 1 }) });
  });

  it('finds VLANs available on a device whose region has ancestors in a cycle', async () => {
    const res = await send('GET', `/api/ipam/vlans/?available_on_device=${device}`);
    expect(res).toEqual({ status: 200, body: expect.objectContaining({ count: 1 }) });
  });
});
