/**
 * Where Patchbay vacuums, it rebuilds a table's indexes once enough of its rows had their index entries
 * replaced (engine/maintenance/reindex-rule.ts): REINDEX TABLE on the embedded database, REINDEX TABLE
 * CONCURRENTLY on PostgreSQL, each outside any transaction block. Checked here on the statement each
 * database gets: the index's file changes when the rule is passed, not before, and nothing is logged.
 */
import { startTestApp, type TestApp } from '../support/test-app';
import { pollFor, seedAddresses } from './support';
import { DEFAULT_RULE } from '../../engine/maintenance/autovacuum-rule';
import { Maintainer } from '../../engine/maintenance/maintainer';
import { REINDEX_SCALE } from '../../engine/maintenance/reindex-rule';

const ROWS = 200;
const TRIGRAM_INDEX = 'ipam_ipaddress_dns_name_trgm';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  await seedAddresses(t, ROWS, 100, (i) => `host-${i}.example.com`);
  // The row estimate the rule scales with, as a pass after seeding would leave it.
  await t.knex.raw('VACUUM ANALYZE "ipam_ipaddress"');
}, 120_000);
afterAll(async () => {
  await t.close();
});

const fileOf = async (index: string) => (await t.knex.raw<{ f: string }>(`SELECT pg_relation_filenode(?::regclass)::text AS "f"`, [index])).rows[0]!.f;

/** Changes every row's dns_name (trigram-indexed: no update is HOT) and tells the maintainer, as a write would. */
async function churn(m: Maintainer, round: number): Promise<void> {
  const res = await t.knex.raw(`UPDATE "ipam_ipaddress" SET "dns_name" = ? || "id"::text || '.example.com'`, [`r${round}-`]);
  m.noteWritten('ipam_ipaddress', 'update', res.rowCount ?? 0);
}

/**
 * Waits until the catalog shows `updates` updates of the table: its counts reach it up to seconds after a
 * transaction, and a maintainer's first sight must include the churn before it.
 */
async function catalogShows(updates: number): Promise<void> {
  const shown = await pollFor(30_000, async () => {
    const n = Number((await t.knex.raw<{ n: string }>(`SELECT n_tup_upd::text AS "n" FROM pg_stat_user_tables WHERE relid = 'ipam_ipaddress'::regclass`)).rows[0]!.n);
    return n >= updates ? n : undefined;
  });
  if (shown === undefined) throw new Error(`the catalog never showed ${updates} updates of ipam_ipaddress`);
}

function maintainer(vacuums: boolean, log: string[]): Maintainer {
  return new Maintainer({ db: t.knex, rule: DEFAULT_RULE, vacuums, embedded: t.db.embedded, intervalMs: 3_600_000, log: (l) => log.push(l) });
}

test('past the rule the indexes are rebuilt, not before; beside autovacuum never', async () => {
  // One round of churn replaces every row's entries: past 50 + REINDEX_SCALE x 200 only if the scale allows.
  const roundsNeeded = Math.floor((DEFAULT_RULE.vacuumBase + REINDEX_SCALE * ROWS) / ROWS) + 1;
  const log: string[] = [];

  const beside = maintainer(false, log);
  await beside.pass();
  const before = await fileOf(TRIGRAM_INDEX);
  for (let r = 0; r < roundsNeeded + 1; r++) await churn(beside, 100 + r);
  await beside.pass();
  await beside.stop();
  expect(await fileOf(TRIGRAM_INDEX)).toBe(before);
  await catalogShows((roundsNeeded + 1) * ROWS);

  const m = maintainer(true, log);
  await m.pass(); // first sight: the churn so far is not counted
  for (let r = 0; r < roundsNeeded - 1; r++) await churn(m, r);
  await m.pass();
  expect(await fileOf(TRIGRAM_INDEX)).toBe(before);
  await churn(m, roundsNeeded);
  await m.pass();
  const rebuilt = await fileOf(TRIGRAM_INDEX);
  expect(rebuilt).not.toBe(before);
  // The count starts again after the rebuild, the last round included once the catalog shows it.
  await catalogShows((roundsNeeded + 1 + roundsNeeded) * ROWS);
  await m.pass();
  expect(await fileOf(TRIGRAM_INDEX)).toBe(rebuilt);
  await m.stop();
  expect(log).toEqual([]);
  const valid = (await t.knex.raw<{ n: number }>(`SELECT count(*)::int AS "n" FROM pg_index WHERE indrelid = 'ipam_ipaddress'::regclass AND NOT indisvalid`)).rows[0]!.n;
  expect(valid).toBe(0);
}, 120_000);
