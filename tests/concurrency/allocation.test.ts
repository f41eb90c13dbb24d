import { TEST_DATABASE_URL } from '../support/test-app';
import { report, startCluster, type Cluster, type Reply } from './support/cluster';

/**
 * Allocation never hands out a value twice: 3 server instances on one PostgreSQL, 8 concurrent clients
 * spread over them, several rounds, all allocating from the same prefix (available-ips and
 * available-prefixes), the same IP range and the same VLAN group. Each allocation takes a
 * transaction-scoped advisory lock on its space before reading what is free, so the clients queue
 * instead of colliding. Asserted: every request is answered 201 or, only once the space has truly run
 * out, 409; the values handed out are distinct, and exactly as many as the space holds are handed out
 * when more are asked for than it has.
 */

const CLIENTS = 8;
const ROUNDS = 4;
const describeOnServer = TEST_DATABASE_URL ? describe : describe.skip;

describeOnServer('concurrent allocation through several instances', () => {
  let c: Cluster;
  beforeAll(async () => {
    // The occupancy race writes one host under two masks on purpose: unique IP space is off here.
    c = await startCluster(3, { ENFORCE_GLOBAL_UNIQUE: 'false' });
  });
  afterAll(async () => {
    await c.close();
  });

  const post = async (path: string, body: unknown): Promise<Reply> => c.t.api.post(path).set(c.t.auth).send(body as object).then((r) => ({ status: r.status, body: r.body as unknown }));
  const made = async (path: string, body: unknown): Promise<number> => {
    const r = await post(path, body);
    if (r.status !== 201) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return (r.body as { id: number }).id;
  };

  /**
   * Runs ROUNDS rounds of CLIENTS concurrent requests (client i on instance i % 3), each asking for
   * `per` objects; `capacity` is how many values the space holds. Returns every value handed out.
   */
  async function hammer(name: string, url: string, per: number, capacity: number, value: string, body: (i: number) => unknown = () => ({})): Promise<unknown[]> {
    const handed: unknown[] = [];
    const counts = { requests: 0, created: 0, conflicts: 0, other: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const replies = await Promise.all(
        Array.from({ length: CLIENTS }, (_, i) => c.instances[i % c.instances.length]!.request('POST', url, c.t.auth, per === 1 ? body(i) : Array.from({ length: per }, () => body(i)))),
      );
      let conflicts = 0;
      for (const r of replies) {
        counts.requests++;
        if (r.status === 201) {
          const objs = Array.isArray(r.body) ? (r.body as Array<Record<string, unknown>>) : [r.body as Record<string, unknown>];
          expect(objs).toHaveLength(per);
          handed.push(...objs.map((o) => o[value]));
          counts.created += objs.length;
        } else if (r.status === 409) {
          conflicts++;
        } else {
          counts.other++;
        }
      }
      // A 409 only when what remained could not satisfy it: free space only shrinks, so after the round too.
      if (conflicts) expect(capacity - handed.length).toBeLessThan(per);
      counts.conflicts += conflicts;
    }
    report(name, { ...counts, distinct: new Set(handed.map(String)).size });
    expect(counts.other).toBe(0);
    expect(new Set(handed.map(String)).size).toBe(handed.length);
    expect(handed.length).toBe(Math.min(capacity - (capacity % per), CLIENTS * ROUNDS * per));
    return handed;
  }

  test('available-ips of a prefix: distinct addresses, 409 only when the prefix is full', async () => {
    // A /26 has 62 usable addresses; 4 rounds x 8 clients x 2 ask for 64.
    const p = await made('/api/ipam/prefixes/', { prefix: '10.200.0.0/26' });
    await hammer('prefix available-ips', `/api/ipam/prefixes/${p}/available-ips/`, 2, 62, 'address');
    const stored = await c.t.knex.raw(`SELECT count(*)::int AS n, count(DISTINCT host(address))::int AS d FROM ipam_ipaddress WHERE address <<= '10.200.0.0/26'`);
    expect(stored.rows[0]).toEqual({ n: 62, d: 62 });
  });

  test('available-ips of an IP range and of the prefix around it share one space: no address twice', async () => {
    const p = await made('/api/ipam/prefixes/', { prefix: '10.201.0.0/27' });
    const r = await made('/api/ipam/ip-ranges/', { start_address: '10.201.0.1/27', end_address: '10.201.0.20/27' });
    const statuses: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const replies = await Promise.all(
        Array.from({ length: CLIENTS }, (_, i) => c.instances[i % 3]!.request('POST', i % 2 ? `/api/ipam/ip-ranges/${r}/available-ips/` : `/api/ipam/prefixes/${p}/available-ips/`, c.t.auth, {})),
      );
      statuses.push(...replies.map((x) => x.status));
    }
    const stored = await c.t.knex.raw(`SELECT count(*)::int AS n, count(DISTINCT host(address))::int AS d, count(*) FILTER (WHERE host(address)::inet <= '10.201.0.20')::int AS "inRange" FROM ipam_ipaddress WHERE address <<= '10.201.0.0/27'`);
    const { n, d, inRange } = stored.rows[0] as { n: number; d: number; inRange: number };
    report('range and prefix sharing a space', { requests: statuses.length, created: statuses.filter((s) => s === 201).length, conflicts: statuses.filter((s) => s === 409).length, distinct: d });
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    expect(d).toBe(n);
    expect(n).toBe(statuses.filter((s) => s === 201).length);
    // The range answered 409 only once all its 20 addresses were taken (by either endpoint).
    if (statuses.includes(409)) expect(inRange).toBe(20);
  });

  test('available-prefixes: distinct /28s out of a /24', async () => {
    const p = await made('/api/ipam/prefixes/', { prefix: '10.202.0.0/24', status: 'container' });
    await hammer('available-prefixes', `/api/ipam/prefixes/${p}/available-prefixes/`, 1, 16, 'prefix', () => ({ prefix_length: 28 }));
  });

  test('occupancy counts never exceed the truth while instances create, move and delete addresses of the same blocks at once; a lone write makes them exact', async () => {
    // Each client owns a set of hosts spread over two /24s and one VRF or the global table; rounds interleave
    // creates, moves between the blocks and deletes of the same blocks through all instances. A writer that
    // removed hosts and recounted from a stale snapshot would leave a count above the truth, which could
    // call a block full that is not.
    const vrf = await made('/api/ipam/vrfs/', { name: 'occupancy-conc', enforce_unique: false });
    const mine = new Map<number, number[]>();
    type Row = { vrf_id: string | null; block: string; hosts: number };
    const counts = async (): Promise<{ stored: Row[]; recount: Row[] }> => ({
      stored: (await c.t.knex.raw(`SELECT "vrf_id", host("block") AS "block", "hosts" FROM "ipam_ipaddress_address_occupancy" WHERE "block" <<= '10.203.0.0/16' ORDER BY 1 NULLS FIRST, "block"`)).rows as Row[],
      recount: (await c.t.knex.raw(`SELECT "vrf_id", host(network(set_masklen("address", 24))) AS "block", count(DISTINCT host("address"))::int AS "hosts"
        FROM "ipam_ipaddress" WHERE "address" <<= '10.203.0.0/16' GROUP BY 1, network(set_masklen("address", 24)) ORDER BY 1 NULLS FIRST, network(set_masklen("address", 24))`)).rows as Row[],
    });
    // Every block in use has its row; no count exceeds the truth (writers adding hosts may leave it short).
    const sound = (at: string, x: { stored: Row[]; recount: Row[] }) => {
      expect([at, x.stored.map((r) => [r.vrf_id, r.block])]).toEqual([at, x.recount.map((r) => [r.vrf_id, r.block])]);
      x.stored.forEach((r, i) => expect([at, r.block, r.hosts > 0 && r.hosts <= x.recount[i]!.hosts]).toEqual([at, r.block, true]));
    };
    for (let round = 0; round < ROUNDS * 4; round++) {
      const replies = await Promise.all(
        Array.from({ length: CLIENTS }, async (_, i) => {
          const inst = c.instances[i % c.instances.length]!;
          const ids = mine.get(i) ?? [];
          const octet = (8 * i + round) % 120;
          // In every round some clients delete, some move and some create, in the same blocks.
          const op = (i + round) % 3;
          if (op === 2 && ids.length) {
            const r = await inst.request('DELETE', '/api/ipam/ip-addresses/', c.t.auth, ids.splice(0, 2).map((id) => ({ id })));
            return r.status;
          }
          if (op === 1 && ids.length) {
            const r = await inst.request('PATCH', `/api/ipam/ip-addresses/${ids[0]}/`, c.t.auth, { address: `10.203.1.${octet}/24` });
            return r.status;
          }
          const r = await inst.request('POST', '/api/ipam/ip-addresses/', c.t.auth, [
            { address: `10.203.0.${octet}/24`, vrf: i % 2 ? vrf : null },
            { address: `10.203.1.${octet + 128}/24`, vrf: i % 2 ? vrf : null },
            { address: `10.203.0.${octet}/32`, vrf: i % 2 ? vrf : null },
          ]);
          if (r.status === 201) mine.set(i, [...ids, ...(r.body as Array<{ id: number }>).map((o) => o.id)]);
          return r.status;
        }),
      );
      expect(replies.every((s) => s === 201 || s === 200 || s === 204)).toBe(true);
      sound(`round ${round}`, await counts());
    }
    const raced = await counts();
    const short = raced.stored.filter((r, i) => r.hosts !== raced.recount[i]?.hosts).length;
    report('occupancy under concurrent writes', { blocks: raced.recount.length, addresses: raced.recount.reduce((n, r) => n + r.hosts, 0), countsShort: short });
    expect(raced.recount.length).toBeGreaterThan(0);
    // The next write to each block, alone, counts it exactly.
    for (const v of [null, vrf]) {
      for (const third of [0, 1]) {
        const id = await made('/api/ipam/ip-addresses/', { address: `10.203.${third}.251/24`, vrf: v });
        expect((await c.t.api.delete(`/api/ipam/ip-addresses/${id}/`).set(c.t.auth)).status).toBe(204);
      }
    }
    const quiet = await counts();
    expect(quiet.stored).toEqual(quiet.recount);
  });

  test('available-vlans: distinct VIDs of one group', async () => {
    const g = await made('/api/ipam/vlan-groups/', { name: 'conc', slug: 'conc', min_vid: 10, max_vid: 39 });
    await hammer('available-vlans', `/api/ipam/vlan-groups/${g}/available-vlans/`, 1, 30, 'vid', (i) => ({ name: `v${i}-${Math.random().toString(36).slice(2, 8)}` }));
  });
});
