/**
 * Issue 25: right after seeding through the API, with no manual ANALYZE, `?dns_name__ic=` must use the
 * trigram index. The statistics that make the planner choose it come from Patchbay's maintenance
 * (engine/maintenance): an ANALYZE after the large writes, off the request path.
 */
import { startTestApp, type TestApp } from '../support/test-app';
import { pollFor, seedAddresses } from './support';
import type { QueryEvent } from '../../engine/database/db';

const ADDRESSES = 10_000;
const TRIGRAM_INDEX = 'ipam_ipaddress_dns_name_trgm';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ maintenance: true });
}, 120_000);
afterAll(async () => {
  await t.close();
});

/** The statement a `dns_name__ic` list request sends, with its values, captured as it runs. */
async function listStatement(term: string): Promise<QueryEvent> {
  const seen: QueryEvent[] = [];
  let capturing = true;
  t.knex.on('query', (q) => {
    if (capturing) seen.push(q);
  });
  const res = await t.api.get(`/api/ipam/ip-addresses/?dns_name__ic=${term}`).set(t.auth);
  capturing = false;
  expect(res.status).toBe(200);
  expect(res.body.count).toBe(1);
  const found = seen.find((q) => q.sql.includes('ipam_ipaddress') && q.bindings.some((b) => typeof b === 'string' && b.includes(term)));
  if (!found) throw new Error(`no statement bound ${term}: ${seen.map((q) => q.sql.slice(0, 80)).join(' | ')}`);
  return found;
}

test('after seeding 10,000 addresses through the API, dns_name__ic uses the trigram index without a manual ANALYZE', async () => {
  await seedAddresses(t, ADDRESSES, 100, (i) => `host-${String(i).padStart(5, '0')}.example.com`);
  const statement = await listStatement('host-04242');
  const plan = async () => (await t.knex.run<Record<string, string>>({ text: `EXPLAIN ${statement.sql}`, values: statement.bindings })).rows.map((r) => Object.values(r)[0]).join('\n');
  // The maintenance pass runs after the responses, in the background: wait for its statistics, generously
  // (MAINTENANCE_TEST_WAIT_MS shortens the wait when checking that the test fails without maintenance).
  const usingIndex = await pollFor(Number(process.env.MAINTENANCE_TEST_WAIT_MS ?? 120_000), async () => ((await plan()).includes(TRIGRAM_INDEX) ? true : undefined));
  if (!usingIndex) {
    const stats = (await t.knex.raw(`SELECT n_live_tup, n_dead_tup, n_ins_since_vacuum, n_mod_since_analyze, vacuum_count, analyze_count, autovacuum_count, autoanalyze_count FROM pg_stat_user_tables WHERE relname = 'ipam_ipaddress' AND schemaname = current_schema()`)).rows[0];
    throw new Error(`the plan never used ${TRIGRAM_INDEX} (table statistics: ${JSON.stringify(stats)}):\n${await plan()}`);
  }
  const analyzed = (await t.knex.raw<{ n: number }>(`SELECT (coalesce(analyze_count, 0) + coalesce(autoanalyze_count, 0))::int AS "n" FROM pg_stat_user_tables WHERE relname = 'ipam_ipaddress' AND schemaname = current_schema()`)).rows[0];
  expect(analyzed?.n).toBeGreaterThan(0);
}, 300_000);
