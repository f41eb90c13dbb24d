/**
 * The IPAM containment filters are single indexed queries: with 20,000 prefixes and 50,000 IP
 * addresses seeded and analysed, the SQL the engine runs for within, within_include, contains and
 * parent (captured while requesting the endpoint) is planned with the GiST inet_ops index, never a
 * sequential scan of the table. PostgreSQL only: PGlite's planner and statistics are not the
 * production ones, and seeding it would be slow.
 */
import { quoteIdent } from '../../engine/migrations/identifiers';
import { startTestApp, TEST_DATABASE_URL, type TestApp } from '../support/test-app';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

// On the embedded database every test here is reported as skipped, never as passed: the same file
// runs for real in the PostgreSQL pass (TEST_DATABASE_URL set).
const onPostgres = TEST_DATABASE_URL ? describe : describe.skip;

onPostgres('EXPLAIN of the IPAM containment filters (PostgreSQL only)', () => {
  let t: TestApp;
  const captured: Array<{ sql: string; bindings: unknown[] }> = [];

  beforeAll(async () => {
    t = await startTestApp();
    const prefix = t.registry.models.get('ipam.prefix')!;
    const ip = t.registry.models.get('ipam.ipaddress')!;
    const P = quoteIdent(prefix.table);
    const A = quoteIdent(ip.table);
    // 20,000 prefixes: 19,744 /24s from 10.0.0.0 upwards and 256 /16 containers in 11.0.0.0/8.
    await t.knex.raw(`INSERT INTO ${P} ("prefix") SELECT set_masklen('10.0.0.0'::inet + (g * 256), 24)::cidr FROM generate_series(0, 19743) AS g`);
    await t.knex.raw(`INSERT INTO ${P} ("prefix", "status") SELECT set_masklen('11.0.0.0'::inet + (g * 65536), 16)::cidr, 'container' FROM generate_series(0, 255) AS g`);
    // 50,000 addresses, five apart, each with a /24 mask.
    await t.knex.raw(`INSERT INTO ${A} ("address", "dns_name") SELECT set_masklen('10.0.0.1'::inet + (g * 5), 24), 'host' || g || '.example.net' FROM generate_series(0, 49999) AS g`);
    await t.knex.raw(`ANALYZE ${P}`);
    await t.knex.raw(`ANALYZE ${A}`);
    t.knex.on('query', (q) => captured.push({ sql: q.sql, bindings: [...q.bindings] }));
  }, 120_000);

  afterAll(async () => {
    await t?.close();
  });

  async function explain(sql: string, bindings: unknown[]): Promise<PlanNode> {
    // The statement exactly as the engine sent it ($n placeholders), on a connection of the same settings.
    const res = await t.knex.run({ text: `EXPLAIN (FORMAT JSON) ${sql}`, values: bindings });
    return (res.rows[0]!['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]!.Plan;
  }

  // within / within_include (<<, <<=) may be served by the GiST index or by the btree, from which
  // PostgreSQL derives an address range for these two operators (it usually prefers that); contains
  // (>>=) and parent (&&) only by the GiST inet_ops index. Either way: an index, never a Seq Scan.
  test.each([
    ['/api/ipam/prefixes/', 'within=10.1.0.0/16', 'gist or btree', 'ipam.prefix', 256],
    ['/api/ipam/prefixes/', 'within_include=10.1.0.0/16', 'gist or btree', 'ipam.prefix', 256],
    ['/api/ipam/prefixes/', 'contains=11.3.4.5', 'gist', 'ipam.prefix', 1],
    ['/api/ipam/prefixes/', 'contains=10.2.3.0/24', 'gist', 'ipam.prefix', 1],
    ['/api/ipam/ip-addresses/', 'parent=10.0.3.0/24', 'gist', 'ipam.ipaddress', 51],
  ] as const)('%s?%s is an index scan (%s), not a Seq Scan', async (path, query, allowed, label, count) => {
    const model = t.registry.models.get(label)!;
    const table = model.table;
    const column = label === 'ipam.prefix' ? 'prefix' : 'address';
    const indexes = (await t.knex.raw(`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ?`, [table])) as { rows: Array<{ indexname: string; indexdef: string }> };
    const onColumn = indexes.rows.filter((r) => new RegExp(`\\(\\s*"?${column}"?[\\s)]`).test(r.indexdef));
    const gist = onColumn.filter((r) => /USING gist/i.test(r.indexdef) && /inet_ops/i.test(r.indexdef)).map((r) => r.indexname);
    const usable = allowed === 'gist' ? gist : onColumn.map((r) => r.indexname);
    expect(gist.length).toBeGreaterThan(0);

    t.queries.reset();
    captured.length = 0;
    const res = await t.api.get(`${path}?${query}&limit=10`).set(t.auth);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(count);

    // The one statement that reads the model's table (page, count and representations together),
    // exactly as the harness logged it.
    const statements = captured.filter((c) => c.sql.includes(`FROM ${quoteIdent(table)} AS "t"`));
    expect(statements.length).toBe(1);
    for (const s of statements) expect(t.queries.log).toContain(s.sql);

    for (const s of statements) {
      const plan = nodes(await explain(s.sql, s.bindings));
      const seq = plan.filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === table);
      const used = plan.map((n) => n['Index Name']).filter((n): n is string => n !== undefined && usable.includes(n));
      expect({ sql: s.sql, seqScans: seq.length, indexUsed: used.length > 0 }).toEqual({ sql: s.sql, seqScans: 0, indexUsed: true });
    }
  });

  test('dns_name__ic (a substring anywhere) is served by the trigram index, not a Seq Scan', async () => {
    captured.length = 0;
    const res = await t.api.get('/api/ipam/ip-addresses/?dns_name__ic=HOST1234.&limit=10').set(t.auth);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(1);
    expect(res.body.results[0].dns_name).toBe('host1234.example.net');
    const s = captured.find((c) => c.sql.includes('FROM "ipam_ipaddress" AS "t"'))!;
    const plan = nodes(await explain(s.sql, s.bindings));
    expect(plan.filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'ipam_ipaddress')).toEqual([]);
    expect(plan.map((n) => n['Index Name'])).toContain('ipam_ipaddress_dns_name_trgm');
  });

  test('without a containment filter the same list is a sequential scan (the check above can tell)', async () => {
    captured.length = 0;
    const res = await t.api.get('/api/ipam/prefixes/?description__ic=none&limit=10').set(t.auth);
    expect(res.status).toBe(200);
    const s = captured.find((c) => c.sql.includes('FROM "ipam_prefix" AS "t"'))!;
    const plan = nodes(await explain(s.sql, s.bindings));
    expect(plan.some((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'ipam_prefix')).toBe(true);
  });
});
