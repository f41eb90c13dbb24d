import { TEST_DATABASE_URL } from '../support/test-app';
import { report, startCluster, REQUEST_TIMEOUT_MS, type Cluster } from './support/cluster';

/**
 * The same write with the same Idempotency-Key sent at once through 3 instances (a client that retries on
 * another instance while its first attempt still runs): exactly one object per round and every answer
 * identical. The first request to claim the key holds it until it commits; the others wait on the key's
 * row and then replay the stored answer. Half the rounds hold the site table with a lock, so all three
 * requests are proven to be in flight together (one waiting on the table, two on the key) before any
 * can finish; the other half are sent with nothing holding them.
 */

const ROUNDS = 20;
const describeOnServer = TEST_DATABASE_URL ? describe : describe.skip;

interface Answer {
  status: number;
  text: string;
  replayed: boolean;
}

describeOnServer('one Idempotency-Key sent concurrently through several instances', () => {
  let c: Cluster;
  beforeAll(async () => {
    c = await startCluster(3);
  });
  afterAll(async () => {
    await c.close();
  });

  async function send(base: string, key: string, body: unknown): Promise<Answer> {
    const res = await fetch(`${base}/api/dcim/sites/`, {
      method: 'POST',
      headers: { ...c.t.auth, Accept: 'application/json', 'Content-Type': 'application/json', 'Idempotency-Key': key },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS * 2),
    });
    return { status: res.status, text: await res.text(), replayed: res.headers.get('idempotent-replayed') === 'true' };
  }

  async function sitesNamed(name: string): Promise<number> {
    const r = await c.t.knex.raw(`SELECT count(*)::int AS n FROM "dcim_site" WHERE "name" = ?`, [name]);
    return (r.rows as Array<{ n: number }>)[0]!.n;
  }

  test(`${ROUNDS} rounds: one object per round, every answer the same`, async () => {
    let overlapped = 0;
    let replays = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const key = `race-${round}`;
      const site = { name: `Race site ${round}`, slug: `race-site-${round}` };
      const held = round % 2 === 0;
      const holder = held ? await c.hold('LOCK TABLE "dcim_site" IN SHARE ROW EXCLUSIVE MODE') : null;
      const pending = c.instances.map((i) => send(i.base, key, site));
      if (holder) {
        // All three in PostgreSQL at once: one waits on the table, two on the first's claim of the key.
        const all = await c.overlapped(3, pending);
        expect(all).toBe(true);
        if (all) overlapped++;
        await holder.release();
      }
      const answers = await Promise.all(pending);
      expect(answers.map((a) => a.status)).toEqual([201, 201, 201]);
      expect(new Set(answers.map((a) => a.text)).size).toBe(1);
      expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
      replays += answers.filter((a) => a.replayed).length;
      expect(await sitesNamed(site.name)).toBe(1);
    }
    const changes = await c.t.knex.raw(`SELECT count(*)::int AS n FROM "extras_objectchange" WHERE "object_repr" LIKE 'Race site %'`);
    expect((changes.rows as Array<{ n: number }>)[0]!.n).toBe(ROUNDS);
    report('idempotency-key race', { rounds: ROUNDS, heldOverlapped: overlapped, replays });
  });
});
