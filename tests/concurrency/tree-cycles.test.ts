import { TEST_DATABASE_URL } from '../support/test-app';
import { report, startCluster, type Cluster } from './support/cluster';
import { Fixtures } from './support/fixtures';

/**
 * Two instances each make one of two regions the other's parent. Each change alone is valid; together
 * they would close a cycle. The holder keeps the region table from being written (SHARE mode) until
 * both requests have passed whatever they do before writing, so the two truly overlap. Exactly one may
 * succeed; the other is refused naming the parent; no cycle is ever committed; both answer.
 */

const ROUNDS = 10;
const describeOnServer = TEST_DATABASE_URL ? describe : describe.skip;

describeOnServer('tree parents changed through two instances at once', () => {
  let c: Cluster;
  let f: Fixtures;
  beforeAll(async () => {
    c = await startCluster(2);
    f = new Fixtures(c.t);
  });
  afterAll(async () => {
    await c.close();
  });

  /** Whether b's ancestors (walked from SQL, bounded) include a: a committed cycle through both. */
  const inCycle = (a: number) =>
    f.count(
      `WITH RECURSIVE up("id", "depth") AS (SELECT "parent_id", 1 FROM "dcim_region" WHERE "id" = ? UNION ALL
        SELECT r."parent_id", up."depth" + 1 FROM "dcim_region" r JOIN up ON r."id" = up."id" WHERE up."depth" < 10)
       SELECT count(*) FROM up WHERE "id" = ?`,
      [a, a],
    );

  it('never commits a cycle, and both requests answer', async () => {
    const [one, two] = c.instances;
    const counts = { rounds: 0, overlapped: 0, accepted: 0, refused: 0, unanswered: 0, cycles: 0 };
    for (let i = 0; i < ROUNDS; i++) {
      const a = await f.region();
      const b = await f.region();
      const r = await c.race(
        ['LOCK TABLE "dcim_region" IN SHARE MODE'],
        () => one.request('PATCH', `/api/dcim/regions/${a}/`, c.t.auth, { parent: b }),
        () => two.request('PATCH', `/api/dcim/regions/${b}/`, c.t.auth, { parent: a }),
      );
      counts.rounds++;
      if (r.overlapped) counts.overlapped++;
      for (const reply of [r.first, r.second]) {
        if (reply.status === 200) counts.accepted++;
        else if (reply.status === 400) {
          counts.refused++;
          expect(reply.body).toEqual({ parent: [expect.stringContaining('Cannot assign a child object as parent')] });
        } else {
          counts.unanswered++;
          process.stdout.write(`unexpected answer ${reply.status} ${JSON.stringify(reply.body)}\n`);
        }
      }
      if ((await inCycle(a)) > 0) {
        counts.cycles++;
        // Break it, so the rounds after this one (on old code) are not stuck behind it.
        await c.t.knex.raw(`UPDATE "dcim_region" SET "parent_id" = NULL WHERE "id" = ANY(?)`, [[a, b]]);
      }
    }
    report('tree cycles', counts);
    expect(counts).toEqual({ rounds: ROUNDS, overlapped: ROUNDS, accepted: ROUNDS, refused: ROUNDS, unanswered: 0, cycles: 0 });
  });
});
