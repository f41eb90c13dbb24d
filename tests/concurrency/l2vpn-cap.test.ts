import { TEST_DATABASE_URL } from '../support/test-app';
import { report, startCluster, type Cluster } from './support/cluster';
import { Fixtures } from './support/fixtures';

/**
 * A point-to-point L2VPN holds at most two terminations (a checks' at_most cap), however many clients
 * add terminations to it at once through several instances: each write takes an advisory lock on the
 * L2VPN before counting, so a writer that waited counts what the other committed. Counted per round: the
 * terminations stored (never more than two), and answers other than 201 and NetBox's 400.
 */

const ROUNDS = 6;
const CLIENTS = 6;
const describeOnServer = TEST_DATABASE_URL ? describe : describe.skip;

describeOnServer('point-to-point L2VPN cap under concurrent writers', () => {
  let c: Cluster;
  let f: Fixtures;
  beforeAll(async () => {
    c = await startCluster(3);
    f = new Fixtures(c.t);
  });
  afterAll(async () => {
    await c.close();
  });

  it('never stores a third termination, whichever instance each writer goes through', async () => {
    const device = await f.device(await f.site());
    const counts = { rounds: 0, created: 0, refused: 0, other: 0, overCap: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const vpn = await f.post('/api/vpn/l2vpns/', { name: `p2p-${round}`, slug: `p2p-${round}`, type: 'vpws' });
      const ifaces: number[] = [];
      for (let i = 0; i < CLIENTS; i++) ifaces.push(await f.interface(device));
      const replies = await Promise.all(
        ifaces.map((iface, i) => c.instances[i % c.instances.length]!.request('POST', '/api/vpn/l2vpn-terminations/', c.t.auth, { l2vpn: vpn, assigned_object_type: 'dcim.interface', assigned_object_id: iface })),
      );
      counts.rounds++;
      for (const r of replies) {
        if (r.status === 201) counts.created++;
        else if (r.status === 400 && JSON.stringify(r.body) === JSON.stringify({ non_field_errors: ['VPWS L2VPNs cannot have more than two terminations; found 2 already defined.'] })) counts.refused++;
        else counts.other++;
      }
      const stored = Number((await c.t.knex.raw(`SELECT count(*) AS n FROM "vpn_l2vpntermination" WHERE "l2vpn_id" = ?`, [vpn])).rows[0].n);
      if (stored > 2) counts.overCap++;
      expect([round, stored]).toEqual([round, 2]);
    }
    report('point-to-point L2VPN cap', counts);
    expect(counts).toEqual({ rounds: ROUNDS, created: 2 * ROUNDS, refused: (CLIENTS - 2) * ROUNDS, other: 0, overCap: 0 });
  });
});
