import { TEST_DATABASE_URL } from '../support/test-app';
import { report, startCluster, type Cluster } from './support/cluster';
import { Fixtures } from './support/fixtures';

/**
 * Two instances cable the same interface at once, each to a different peer: a holder keeps the cable
 * termination table in SHARE mode, so both requests have written their cable and wait to attach it;
 * then both go on. The database must leave one cable on the interface (the other request refused with
 * a 400, its cable undone), and the stored paths must agree with the cables left: the interface's path
 * reaches the winner's peer, the loser's peer has no path, and every stored origin is cabled.
 */

const ROUNDS = 6;
const describeOnServer = TEST_DATABASE_URL ? describe : describe.skip;

describeOnServer('concurrent cabling of the same port through two instances', () => {
  let c: Cluster;
  let f: Fixtures;
  let dev: number;
  beforeAll(async () => {
    c = await startCluster(3);
    f = new Fixtures(c.t);
    dev = await f.device(await f.site());
  });
  afterAll(async () => {
    await c.close();
  });

  test('one cable per port, and paths consistent with it', async () => {
    let overlapped = 0;
    const statuses: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const [x, y, z] = [await f.interface(dev), await f.interface(dev), await f.interface(dev)];
      const body = (peer: number) => ({ a_terminations: [{ object_type: 'dcim.interface', object_id: x }], b_terminations: [{ object_type: 'dcim.interface', object_id: peer }] });
      const r = await c.race(
        ['LOCK TABLE "dcim_cabletermination" IN SHARE MODE'],
        () => c.instances[round % 3]!.request('POST', '/api/dcim/cables/', c.t.auth, body(y)),
        () => c.instances[(round + 1) % 3]!.request('POST', '/api/dcim/cables/', c.t.auth, body(z)),
      );
      if (r.overlapped) overlapped++;
      statuses.push(r.first.status, r.second.status);
      expect([r.first.status, r.second.status].sort()).toEqual([201, 400]);
      const winner = r.first.status === 201 ? y : z;
      const loser = winner === y ? z : y;
      expect(await f.count(`SELECT count(*) FROM "dcim_cabletermination" WHERE "termination_type" = 'dcim.interface' AND "termination_id" = ?`, [x])).toBe(1);
      const onX = (await c.t.api.get(`/api/dcim/interfaces/${x}/`).set(c.t.auth)).body as { connected_endpoints: Array<{ id: number }> | null };
      expect(onX.connected_endpoints?.map((e) => e.id)).toEqual([winner]);
      const onLoser = (await c.t.api.get(`/api/dcim/interfaces/${loser}/`).set(c.t.auth)).body as { connected_endpoints: unknown; cable: unknown };
      expect([onLoser.connected_endpoints, onLoser.cable]).toEqual([null, null]);
    }
    // Every stored origin is cabled; every cabled interface has exactly one stored path.
    expect(await f.count(`SELECT count(*) FROM "dcim_cablepathend" e WHERE e."end" = 'origin' AND NOT EXISTS (SELECT 1 FROM "dcim_cabletermination" t WHERE t."termination_type" = e."node_type" AND t."termination_id" = e."node_id")`)).toBe(0);
    expect(await f.count(`SELECT count(*) FROM "dcim_cabletermination" t WHERE t."termination_type" = 'dcim.interface' AND (SELECT count(*) FROM "dcim_cablepathend" e WHERE e."end" = 'origin' AND e."node_type" = t."termination_type" AND e."node_id" = t."termination_id") <> 1`)).toBe(0);
    report('cable paths: same port cabled twice at once', { rounds: ROUNDS, overlapped, created: statuses.filter((s) => s === 201).length, refused: statuses.filter((s) => s === 400).length });
  });
});
