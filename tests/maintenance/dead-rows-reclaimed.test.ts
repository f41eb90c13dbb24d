/**
 * Issue 25: updates that change indexed columns leave dead heap rows and dead index entries that page
 * pruning cannot reclaim. Where no autovacuum runs (the embedded database always; a PostgreSQL server with
 * autovacuum off), Patchbay's maintenance vacuums by autovacuum's rule, so the space is reused, and rebuilds
 * the indexes once half the table's rows have had their index entries replaced (engine/maintenance/
 * reindex-rule.ts), so the table with its indexes stays within twice the size a VACUUM FULL leaves.
 */
import { startTestApp, TEST_DATABASE_URL, type TestApp } from '../support/test-app';
import { addressOf, seedAddresses } from './support';
import { autovacuumRuns } from '../../engine/maintenance/autovacuum-setting';

const ROWS = 1000;
const UPDATES = 10_000;
const PER_REQUEST = 100;

let t: TestApp;
let autovacuum = false;
beforeAll(async () => {
  t = await startTestApp({ maintenance: true });
  autovacuum = TEST_DATABASE_URL ? await autovacuumRuns(t.knex) : false;
}, 120_000);
afterAll(async () => {
  await t.close();
});

/** The table's main fork, and the table with its indexes (pg_total_relation_size). */
const sizes = async () => (await t.knex.raw<{ heap: number; total: number }>(`SELECT pg_relation_size('ipam_ipaddress')::float8 AS "heap", pg_total_relation_size('ipam_ipaddress')::float8 AS "total"`)).rows[0]!;

test('after 10,000 updates of indexed columns across 1,000 addresses the table and its indexes stay within twice their compacted size', async () => {
  // With autovacuum running, reclaiming is its work and its timing, not Patchbay's: nothing of ours to test.
  // On a PostgreSQL server the other sessions of the same database (CI runs two test files at once in one
  // database) hold back the horizon VACUUM may reclaim below, so the sizes there depend on whatever else runs:
  // the size bound is the embedded database's (issue 25), where Patchbay's connection is the only one.
  if (autovacuum || TEST_DATABASE_URL) return;
  const ids = await seedAddresses(t, ROWS, PER_REQUEST, (i) => `host-${i}.example.com`);
  for (let done = 0, round = 1; done < UPDATES; round++) {
    for (let start = 0; start < ROWS && done < UPDATES; start += PER_REQUEST, done += PER_REQUEST) {
      // address (btree and gist indexes) and dns_name (trigram GIN index) change: no update is HOT.
      const body = ids.slice(start, start + PER_REQUEST).map((id, k) => ({ id, address: addressOf(round * ROWS + start + k), dns_name: `r${round}-host-${start + k}.example.com` }));
      const res = await t.api.patch('/api/ipam/ip-addresses/').set(t.auth).send(body);
      expect(res.status).toBe(200);
    }
  }
  const after = await sizes();
  await t.knex.raw('VACUUM FULL "ipam_ipaddress"');
  const compacted = await sizes();
  // Jest's messages give the sizes in bytes. VACUUM alone keeps the heap within 2x but not the indexes: it
  // makes a GIN (trigram) index's freed space reusable but never removes a key from its entry tree, so the
  // total grew to 2.1-3.1x (13x without maintenance); the rebuilds bring it back. Measured on the embedded
  // database (total after / after VACUUM FULL): 1.26-1.72x at the end over eight runs, 1.76-1.88x at the
  // largest between requests; the heap 1.3-1.4x. What stays over 1x after a rebuild is fixed per relation and large beside
  // a 1,000-row table's two- to five-page indexes: a vacuumed index's 3-page free space map, a B-tree's
  // first splits. Rebuilding after a whole table's rows (scale 1.0) peaked at 1.90-1.97x.
  expect(after.heap).toBeLessThanOrEqual(2 * compacted.heap);
  expect(after.total).toBeLessThanOrEqual(2 * compacted.total);
}, 600_000);
