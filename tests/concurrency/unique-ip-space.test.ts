import { TEST_DATABASE_URL } from '../support/test-app';
import { report, startCluster, type Cluster, type Reply } from './support/cluster';

/**
 * Unique IP space (no_overlap rules over one point: an address's host, a prefix as stored) under clients
 * racing through several instances: each write takes an advisory lock on the VRF and the host before it
 * looks for a duplicate, so a writer that waited sees what the other committed. Per round: exactly one
 * of the racing writes is stored, every other is NetBox's 400.
 */

const ROUNDS = 5;
const CLIENTS = 6;
const describeOnServer = TEST_DATABASE_URL ? describe : describe.skip;

describeOnServer('unique IP space under concurrent writers', () => {
  let c: Cluster;
  beforeAll(async () => {
    c = await startCluster(3);
  });
  afterAll(async () => {
    await c.close();
  });

  const tally = (replies: Reply[], refusal: RegExp, counts: { created: number; refused: number; other: number }) => {
    for (const r of replies) {
      if (r.status === 201) counts.created++;
      else if (r.status === 400 && refusal.test(JSON.stringify(r.body))) counts.refused++;
      else counts.other++;
    }
  };
  const send = (i: number, path: string, body: unknown) => c.instances[i % c.instances.length]!.request('POST', path, c.t.auth, body);
  const stored = async (sqlText: string, values: unknown[]) => Number((await c.t.knex.raw(sqlText, values)).rows[0].n);

  it('one address per host, in the global table and in an enforcing VRF, under any mask, single or bulk', async () => {
    const vrf = (await send(0, '/api/ipam/vrfs/', { name: 'racing', enforce_unique: true })).body as { id: number };
    const counts = { rounds: 0, created: 0, refused: 0, other: 0, duplicates: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      for (const scope of [null, vrf.id]) {
        const host = `10.${scope === null ? 20 : 21}.${round}.1`;
        // Every other client sends a bulk of one, so set-based bulk writes race single ones.
        const replies = await Promise.all(
          Array.from({ length: CLIENTS }, (_, i) => {
            const body = { address: `${host}/${String(20 + i)}`, vrf: scope };
            return send(i, '/api/ipam/ip-addresses/', i % 2 ? [body] : body);
          }),
        );
        counts.rounds++;
        tally(replies, /Duplicate IP address found in (global table|VRF racing): 10\.2[01]\.\d+\.1\/2\d/, counts);
        const n = await stored(`SELECT count(*) AS n FROM "ipam_ipaddress" WHERE host("address") = ? AND "vrf_id" IS NOT DISTINCT FROM ?`, [host, scope]);
        if (n !== 1) counts.duplicates++;
      }
    }
    report('unique IP addresses', counts);
    expect(counts).toEqual({ rounds: 2 * ROUNDS, created: 2 * ROUNDS, refused: 2 * ROUNDS * (CLIENTS - 1), other: 0, duplicates: 0 });
  });

  it('one prefix per network and mask', async () => {
    const counts = { rounds: 0, created: 0, refused: 0, other: 0, duplicates: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const prefix = `10.30.${round}.0/24`;
      const replies = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => send(i, '/api/ipam/prefixes/', { prefix })));
      counts.rounds++;
      tally(replies, /^\{"prefix":\["Duplicate prefix found in global table: 10\.30\.\d\.0\/24"\]\}$/, counts);
      if ((await stored(`SELECT count(*) AS n FROM "ipam_prefix" WHERE "prefix" = ?::cidr`, [prefix])) !== 1) counts.duplicates++;
    }
    report('unique prefixes', counts);
    expect(counts).toEqual({ rounds: ROUNDS, created: ROUNDS, refused: ROUNDS * (CLIENTS - 1), other: 0, duplicates: 0 });
  });
});
