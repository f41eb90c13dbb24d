import { startTestApp, type TestApp } from '../support/test-app';

/**
 * "A list request costs a constant number of SQL queries whatever the page size" (DESIGN.md), and since
 * issue 14 that number is one: the read is a single statement whatever the page size or the nesting.
 * Related objects are spread over many distinct rows so a per-row query would show.
 */

let t: TestApp;
const N = 1000;
const RELATED = 100;

beforeAll(async () => {
  t = await startTestApp();
}, 120000);
afterAll(async () => {
  await t.close();
});

async function bulkCreate(path: string, items: unknown[]): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < items.length; i += 250) {
    const res = await t.api.post(path).set(t.auth).send(items.slice(i, i + 250));
    expect([path, res.status]).toEqual([path, 201]);
    ids.push(...(res.body as Array<{ id: number }>).map((o) => o.id));
  }
  return ids;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/**
 * A read is one statement: the page, its count and every nested object, list and count come back from
 * PostgreSQL as the body's JSON, with the check that the token the process cached is still current.
 */
function expectOneReadStatement(url: string, log: string[]): void {
  expect([url, log.length]).toEqual([url, 1]);
  expect(log[0]).toContain('"patchbay_auth_version"');
}

/**
 * SQL statements one GET costs, after a warm-up request. The token's last use was just recorded (in the
 * future, so no once-a-minute stamp falls inside a measurement however slow the machine): that write is
 * per request, not per row, and would only make the counts flaky.
 */
async function cost(url: string): Promise<{ n: number; body: any; log: string[] }> {
  await t.knex.raw(`UPDATE "users_token" SET "last_used" = now() + interval '1 day' WHERE "key" = ?`, [t.token]);
  expect((await t.api.get(url).set(t.auth)).status).toBe(200);
  t.queries.reset();
  const res = await t.api.get(url).set(t.auth);
  expect(res.status).toBe(200);
  expectOneReadStatement(url, t.queries.log);
  return { n: t.queries.count, body: res.body, log: [...t.queries.log] };
}

describe('with 1000 prefixes, 1000 IP addresses and 100 each of their related objects', () => {
  let tags: number[];
  beforeAll(async () => {
    tags = await bulkCreate('/api/extras/tags/', range(3).map((i) => ({ name: `QC tag ${i}`, slug: `qc-tag-${i}` })));
    const regions = await bulkCreate('/api/dcim/regions/', range(10).map((i) => ({ name: `QC region ${i}`, slug: `qc-region-${i}` })));
    const tenants = await bulkCreate('/api/tenancy/tenants/', range(RELATED).map((i) => ({ name: `QC tenant ${i}`, slug: `qc-tenant-${i}` })));
    const sites = await bulkCreate(
      '/api/dcim/sites/',
      range(RELATED).map((i) => ({ name: `QC site ${i}`, slug: `qc-site-${i}`, region: regions[i % regions.length], tenant: tenants[(i * 3) % RELATED], tags: [tags[i % 3]] })),
    );
    const vrfs = await bulkCreate('/api/ipam/vrfs/', range(RELATED).map((i) => ({ name: `QC vrf ${i}`, rd: `65000:${i}`, tenant: tenants[i] })));
    const roles = await bulkCreate('/api/ipam/roles/', range(RELATED).map((i) => ({ name: `QC role ${i}`, slug: `qc-role-${i}` })));
    const vlans = await bulkCreate('/api/ipam/vlans/', range(RELATED).map((i) => ({ vid: i + 1, name: `QC vlan ${i}`, site: sites[i], role: roles[i] })));
    await bulkCreate(
      '/api/ipam/prefixes/',
      range(N).map((i) => ({
        prefix: `10.${Math.floor(i / 256)}.${i % 256}.0/24`,
        vrf: vrfs[i % RELATED],
        site: sites[(i * 3) % RELATED],
        tenant: tenants[(i * 7) % RELATED],
        role: roles[(i * 11) % RELATED],
        vlan: vlans[(i * 13) % RELATED],
        tags: [tags[i % 3], tags[(i + 1) % 3]],
      })),
    );
    const inside = await bulkCreate('/api/ipam/ip-addresses/', range(N / 2).map((i) => ({ address: `172.16.${Math.floor(i / 256)}.${i % 256}/16`, vrf: vrfs[i % RELATED], tenant: tenants[(i * 3) % RELATED], tags: [tags[i % 3]] })));
    await bulkCreate(
      '/api/ipam/ip-addresses/',
      range(N / 2).map((i) => ({
        address: `198.18.${Math.floor(i / 256)}.${i % 256}/15`,
        nat_inside: inside[(i * 7) % inside.length],
        vrf: vrfs[(i * 3) % RELATED],
        tenant: tenants[i % RELATED],
        tags: [tags[i % 3], tags[(i + 2) % 3]],
      })),
    );
  }, 300000);

  test('prefixes: limit=10 and limit=1000 cost the same small number of queries', async () => {
    const small = await cost('/api/ipam/prefixes/?limit=10');
    const large = await cost('/api/ipam/prefixes/?limit=1000');
    expect(small.body.results).toHaveLength(10);
    expect(large.body.results).toHaveLength(N);
    expect(large.body.count).toBe(N);
    // Every row really carries its five nested objects and tags.
    for (const p of large.body.results) {
      for (const rel of ['vrf', 'site', 'tenant', 'role', 'vlan']) expect(p[rel]).toEqual(expect.objectContaining({ id: expect.any(Number), url: expect.any(String) }));
      expect(p.tags).toHaveLength(2);
    }
    expect(new Set(large.body.results.map((p: { site: { id: number } }) => p.site.id)).size).toBe(RELATED);
    expect(large.n).toBe(small.n);
  });

  test('prefixes brief=1: constant, and fewer than the full form', async () => {
    const full = await cost('/api/ipam/prefixes/?limit=10');
    const small = await cost('/api/ipam/prefixes/?limit=10&brief=1');
    const large = await cost('/api/ipam/prefixes/?limit=1000&brief=1');
    expect(Object.keys(large.body.results[0]).sort()).toEqual(['family', 'id', 'prefix', 'url']);
    expect(large.body.results).toHaveLength(N);
    expect(large.n).toBe(small.n);
    expect(full.n).toBe(small.n);
  });

  test('the default page and limit=0 (the cap) cost the same too', async () => {
    const def = await cost('/api/ipam/prefixes/');
    const capped = await cost('/api/ipam/prefixes/?limit=0');
    expect(def.body.results).toHaveLength(50);
    expect(capped.body.results).toHaveLength(N);
    expect(capped.n).toBe(def.n);
  });

  test('ip-addresses with nat_inside and tags: limit=10 and limit=1000 cost the same', async () => {
    // The NAT addresses come last in address order (198.18/15 after 172.16/16): page from there.
    const small = await cost('/api/ipam/ip-addresses/?limit=10&offset=990');
    const large = await cost('/api/ipam/ip-addresses/?limit=1000');
    expect(small.body.results).toHaveLength(10);
    expect(large.body.results).toHaveLength(N);
    const natted = large.body.results.filter((a: { nat_inside: unknown }) => a.nat_inside !== null);
    expect(natted).toHaveLength(N / 2);
    expect(natted[0].nat_inside).toEqual(expect.objectContaining({ id: expect.any(Number), address: expect.stringMatching(/^172\.16\./) }));
    expect(small.body.results.every((a: { nat_inside: unknown; tags: unknown[] }) => a.nat_inside !== null && a.tags.length === 2)).toBe(true);
    expect(large.n).toBe(small.n);
  });

  test('sites with their counts, region, tenant and tags: limit=5 and limit=100 cost the same', async () => {
    const small = await cost('/api/dcim/sites/?limit=5');
    const large = await cost('/api/dcim/sites/?limit=100');
    expect(large.body.results).toHaveLength(RELATED);
    const total = large.body.results.reduce((s: number, x: { prefix_count: number }) => s + x.prefix_count, 0);
    expect(total).toBe(N);
    expect(large.body.results.every((s: { vlan_count: number; region: unknown; tenant: unknown; tags: unknown[] }) => s.vlan_count === 1 && s.region && s.tenant && s.tags.length === 1)).toBe(true);
    expect(large.n).toBe(small.n);
  });

  test('other lists with counts (tenants, vrfs, roles, regions): constant', async () => {
    for (const path of ['/api/tenancy/tenants/', '/api/ipam/vrfs/', '/api/ipam/roles/', '/api/dcim/regions/', '/api/ipam/vlans/']) {
      const small = await cost(`${path}?limit=2`);
      // A page of every row (limit = count): a short last page skips the count query, which would flatter it.
      const large = await cost(`${path}?limit=${String(small.body.count)}`);
      expect(large.body.results.length).toBeGreaterThan(2);
      expect([path, large.n]).toEqual([path, small.n]);
    }
  });

  test('circuits with termination_a/z, cables with their ends, interfaces with cable peers: constant', async () => {
    const provider = (await bulkCreate('/api/circuits/providers/', [{ name: 'QC provider', slug: 'qc-provider' }]))[0];
    const ctype = (await bulkCreate('/api/circuits/circuit-types/', [{ name: 'QC ctype', slug: 'qc-ctype' }]))[0];
    const siteIds = (await t.api.get('/api/dcim/sites/?limit=20').set(t.auth)).body.results.map((x: { id: number }) => x.id) as number[];
    const circuits = await bulkCreate('/api/circuits/circuits/', range(20).map((i) => ({ cid: `QC-${i}`, provider, type: ctype })));
    const terms = await bulkCreate('/api/circuits/circuit-terminations/', circuits.flatMap((c, i) => [
      { circuit: c, term_side: 'A', site: siteIds[i % siteIds.length] },
      { circuit: c, term_side: 'Z', site: siteIds[(i + 1) % siteIds.length] },
    ]));
    const mfr = (await bulkCreate('/api/dcim/manufacturers/', [{ name: 'QC mfr', slug: 'qc-mfr' }]))[0];
    const dtype = (await bulkCreate('/api/dcim/device-types/', [{ manufacturer: mfr, model: 'QC model', slug: 'qc-model' }]))[0];
    const role = (await bulkCreate('/api/dcim/device-roles/', [{ name: 'QC drole', slug: 'qc-drole' }]))[0];
    const devices = await bulkCreate('/api/dcim/devices/', range(10).map((i) => ({ name: `qc-dev-${i}`, device_type: dtype, role, site: siteIds[i % siteIds.length] })));
    const ifaces = await bulkCreate('/api/dcim/interfaces/', devices.flatMap((d) => [0, 1].map((k) => ({ device: d, name: `xe-${k}`, type: '10gbase-x-sfpp' }))));
    await bulkCreate('/api/dcim/cables/', range(10).map((i) => ({
      a_terminations: [{ object_type: 'dcim.interface', object_id: ifaces[2 * i] }],
      b_terminations: i % 2
        ? [{ object_type: 'dcim.interface', object_id: ifaces[2 * i + 1] }]
        : [{ object_type: 'circuits.circuittermination', object_id: terms[i] }],
    })));
    for (const path of ['/api/circuits/circuits/', '/api/dcim/cables/', '/api/dcim/interfaces/', '/api/circuits/circuit-terminations/']) {
      // Four rows already hold every kind of peer (interface and circuit termination), as the whole list does.
      const small = await cost(`${path}?limit=4`);
      const large = await cost(`${path}?limit=${String(small.body.count)}`);
      expect(large.body.results.length).toBeGreaterThan(4);
      expect([path, large.n]).toEqual([path, small.n]);
    }
    const listed = (await cost('/api/circuits/circuits/?limit=100&cid__isw=QC-')).body.results as Array<{ termination_a: { site: unknown } | null; termination_z: unknown }>;
    expect(listed.every((c) => c.termination_a?.site && c.termination_z)).toBe(true);
  });

  test('filters naming related objects (by id, by slug, tags) are in the same one statement; an unknown one is still a 400', async () => {
    const site = (await t.api.get('/api/dcim/sites/?limit=1').set(t.auth)).body.results[0] as { id: number; slug: string };
    for (const url of [`/api/ipam/prefixes/?site_id=${site.id}`, `/api/ipam/prefixes/?site=${site.slug}&tag=qc-tag-0&tag=qc-tag-1`, '/api/dcim/sites/?region=qc-region-1']) {
      const res = await cost(url);
      expect(res.body.count).toBeGreaterThan(0);
    }
    t.queries.reset();
    const bad = await t.api.get(`/api/ipam/prefixes/?site=${site.slug}&site=no-such-site&vrf_id=987654`).set(t.auth);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      site: ['Select a valid choice. no-such-site is not one of the available choices.'],
      vrf_id: ['Select a valid choice. 987654 is not one of the available choices.'],
    });
    expect(t.queries.count).toBe(1);
  });

  test('a detail request costs what a one-row page does', async () => {
    const list = await cost('/api/ipam/prefixes/?limit=1');
    const detail = await cost(`/api/ipam/prefixes/${String(list.body.results[0].id)}/`);
    expect(detail.n).toBe(list.n);
    expect(detail.log[0]).not.toContain('WITH "page"');
  });

  test('a bulk PATCH of 100 costs a number of queries proportional to its size, not worse', async () => {
    const page = await cost('/api/ipam/prefixes/?limit=100');
    t.queries.reset();
    const res = await t.api
      .patch('/api/ipam/prefixes/')
      .set(t.auth)
      .send(page.body.results.map((p: { id: number }) => ({ id: p.id, description: 'touched' })));
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(100);
    // The re-read of the 100 objects is constant; the writes are a few statements each.
    expect(t.queries.count).toBeLessThanOrEqual(100 * 6 + 20);
  });
});
