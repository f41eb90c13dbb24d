import { TEST_DATABASE_URL } from '../support/test-app';
import { report, startCluster, type Cluster } from './support/cluster';
import { Fixtures } from './support/fixtures';

/**
 * Writes lock in opposite orders: a delete locks top down (the device, then the interfaces the database
 * will cascade to), a change of an interface locks its own row and then reads its device FOR SHARE for
 * the interface's site check. Held so that each has its first lock and wants the other's, the two
 * deadlock; PostgreSQL aborts one. That one is run again, as its whole transaction rolled back: neither
 * request may answer 500. The delete always ends done; the change either came first (200) or finds
 * its interface gone (404).
 */

const ROUNDS = 3;
const describeOnServer = TEST_DATABASE_URL ? describe : describe.skip;

describeOnServer('a delete and a change that lock in opposite orders', () => {
  let c: Cluster;
  let f: Fixtures;
  beforeAll(async () => {
    c = await startCluster(2);
    f = new Fixtures(c.t);
  });
  afterAll(async () => {
    await c.close();
  });

  it('both answer, without a 500, when PostgreSQL breaks their deadlock', async () => {
    const counts = { rounds: 0, overlapped: 0, changed: 0, gone: 0, deleted: 0, other: 0 };
    const site = await f.site();
    const vlan = await f.post('/api/ipam/vlans/', { vid: 100, name: 'Site VLAN', site });
    const vrf = await f.post('/api/ipam/vrfs/', { name: 'VRF' });
    for (let i = 0; i < ROUNDS; i++) {
      const device = await f.device(site);
      const iface = await f.post('/api/dcim/interfaces/', { device, name: 'eth0', type: '1000base-t', mode: 'access', untagged_vlan: vlan });
      const r = await c.race(
        // The change updates the interface, then waits to check its VRF's key, holding the interface.
        [`SELECT 1 FROM "ipam_vrf" WHERE "id" = ${vrf} FOR UPDATE`],
        () => c.instances[0].request('PATCH', `/api/dcim/interfaces/${iface}/`, c.t.auth, { vrf }),
        () => c.instances[1].request('DELETE', `/api/dcim/devices/${device}/`, c.t.auth),
      );
      counts.rounds++;
      if (r.overlapped) counts.overlapped++;
      if (r.first.status === 200) counts.changed++;
      else if (r.first.status === 404) counts.gone++;
      else counts.other++;
      if (r.second.status === 204) counts.deleted++;
      else counts.other++;
      if (counts.other) process.stdout.write(`unexpected answers ${JSON.stringify(r)}\n`);
    }
    report('delete vs change locking in opposite orders', counts);
    expect(counts).toEqual({ rounds: ROUNDS, overlapped: ROUNDS, changed: expect.any(Number), gone: expect.any(Number), deleted: ROUNDS, other: 0 });
    expect(counts.changed + counts.gone).toBe(ROUNDS);
  });
});
