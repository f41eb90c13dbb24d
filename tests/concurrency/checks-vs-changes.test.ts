import { TEST_DATABASE_URL } from '../support/test-app';
import { report, startCluster, type Cluster } from './support/cluster';
import { Fixtures } from './support/fixtures';

/**
 * A check a write makes (the caller's permission scope, a definition's rule across related objects,
 * a named validator) against a concurrent change of what the check reads. In each round the change
 * comes first and is held open after its write (the holder keeps a row it needs locked); the checked
 * write then comes. The check must judge the row as the change leaves it, not as it was before: the
 * write waits for the change and is then refused. Counted: rounds, rounds that overlapped, answers,
 * and writes accepted on a state their check forbids (must be 0).
 */

const ROUNDS = 8;
const describeOnServer = TEST_DATABASE_URL ? describe : describe.skip;

describeOnServer('checks vs concurrent changes of what they read', () => {
  let c: Cluster;
  let f: Fixtures;
  beforeAll(async () => {
    c = await startCluster(2);
    f = new Fixtures(c.t);
  });
  afterAll(async () => {
    await c.close();
  });

  it('a permission-scoped change waits for a concurrent change that moves the object out of scope, then is refused', async () => {
    const key = await c.t.makeToken();
    const user = (await c.t.knex.raw(`SELECT "user_id" FROM "users_token" WHERE "key" = ?`, [key])).rows[0].user_id as number;
    const scoped = { Authorization: `Token ${key}` };
    await f.post('/api/users/permissions/', { name: 'view sites', object_types: ['dcim.site'], actions: ['view'], users: [user] });
    await f.post('/api/users/permissions/', { name: 'change active sites', object_types: ['dcim.site'], actions: ['change'], constraints: { status: 'active' }, users: [user] });
    const counts = { rounds: 0, overlapped: 0, moved: 0, refused: 0, other: 0, outOfScopeChanges: 0 };
    for (let i = 0; i < ROUNDS; i++) {
      const site = await f.site();
      const r = await c.race(
        [`SELECT 1 FROM "dcim_site" WHERE "id" = ${site} FOR SHARE`],
        () => c.instances[0].request('PATCH', `/api/dcim/sites/${site}/`, c.t.auth, { status: 'planned' }),
        () => c.instances[1].request('PATCH', `/api/dcim/sites/${site}/`, scoped, { status: 'active', description: `round ${i}` }),
      );
      counts.rounds++;
      if (r.overlapped) counts.overlapped++;
      if (r.first.status === 200) counts.moved++;
      else counts.other++;
      if (r.second.status === 403) counts.refused++;
      else if (r.second.status !== 200) counts.other++;
      // Both answered 200 and the site ends active: the scoped change was applied to a planned site.
      const final = (await c.t.knex.raw(`SELECT "status" FROM "dcim_site" WHERE "id" = ?`, [site])).rows[0].status as string;
      if (r.first.status === 200 && r.second.status === 200 && final === 'active') counts.outOfScopeChanges++;
    }
    report('permission scope vs a change moving the object out of it', counts);
    expect(counts).toEqual({ rounds: ROUNDS, overlapped: ROUNDS, moved: ROUNDS, refused: ROUNDS, other: 0, outOfScopeChanges: 0 });
  });

  it("a device's rack-in-site check waits for a concurrent move of the rack to another site, then is refused", async () => {
    const counts = { rounds: 0, overlapped: 0, rackMoved: 0, refused: 0, other: 0, inconsistent: 0 };
    await f.device(await f.site()); // the device type and role
    for (let i = 0; i < ROUNDS; i++) {
      const here = await f.site();
      const there = await f.site();
      const rack = await f.rack(here);
      const r = await c.race(
        // The rack's move updates the rack, then waits to check its new site's key, holding the rack changed.
        [`SELECT 1 FROM "dcim_site" WHERE "id" = ${there} FOR UPDATE`],
        () => c.instances[0].request('PATCH', `/api/dcim/racks/${rack}/`, c.t.auth, { site: there }),
        () => c.instances[1].request('POST', '/api/dcim/devices/', c.t.auth, { ...f.deviceBody(here), rack }),
      );
      counts.rounds++;
      if (r.overlapped) counts.overlapped++;
      if (r.first.status === 200) counts.rackMoved++;
      else counts.other++;
      if (r.second.status === 400 && 'rack' in (r.second.body as object)) counts.refused++;
      else if (r.second.status !== 201) counts.other++;
    }
    counts.inconsistent = await f.count(`SELECT count(*) FROM "dcim_device" d JOIN "dcim_rack" k ON k."id" = d."rack_id" WHERE k."site_id" <> d."site_id"`);
    report('definition check (rack in site) vs a move of the rack', counts);
    expect(counts).toEqual({ rounds: ROUNDS, overlapped: ROUNDS, rackMoved: ROUNDS, refused: ROUNDS, other: 0, inconsistent: 0 });
  });

  it("a device's primary IP check waits for a concurrent move of the IP to another device's interface, then is refused", async () => {
    const counts = { rounds: 0, overlapped: 0, ipMoved: 0, refused: 0, other: 0, inconsistent: 0 };
    const site = await f.site();
    const tenant = await f.tenant();
    for (let i = 0; i < ROUNDS; i++) {
      const device = await f.device(site);
      const other = await f.device(site);
      const ip = await f.ip(await f.interface(device));
      const elsewhere = await f.interface(other);
      const r = await c.race(
        // The IP's move updates the IP, then waits to check its tenant's key, holding the IP changed.
        [`SELECT 1 FROM "tenancy_tenant" WHERE "id" = ${tenant} FOR UPDATE`],
        () => c.instances[0].request('PATCH', `/api/ipam/ip-addresses/${ip}/`, c.t.auth, { assigned_object_type: 'dcim.interface', assigned_object_id: elsewhere, tenant }),
        () => c.instances[1].request('PATCH', `/api/dcim/devices/${device}/`, c.t.auth, { primary_ip4: ip }),
      );
      counts.rounds++;
      if (r.overlapped) counts.overlapped++;
      if (r.first.status === 200) counts.ipMoved++;
      else counts.other++;
      if (r.second.status === 400 && 'primary_ip4' in (r.second.body as object)) counts.refused++;
      else if (r.second.status !== 200) counts.other++;
    }
    counts.inconsistent = await f.count(
      `SELECT count(*) FROM "dcim_device" d JOIN "ipam_ipaddress" x ON x."id" = d."primary_ip4_id"
        WHERE NOT (x."assigned_object_type" = 'dcim.interface' AND EXISTS (SELECT 1 FROM "dcim_interface" i WHERE i."id" = x."assigned_object_id" AND i."device_id" = d."id"))`,
    );
    report('named validator (primary IP on own interface) vs a move of the IP', counts);
    expect(counts).toEqual({ rounds: ROUNDS, overlapped: ROUNDS, ipMoved: ROUNDS, refused: ROUNDS, other: 0, inconsistent: 0 });
  });
});
