/**
 * NetBox refuses a duplicate IP address (IPAddress.clean()); Patchbay's check reads the other addresses of
 * the VRF for every written row. That read must be an index lookup: spelt host(address)::inet it matched no
 * index, so each new row scanned the whole table and bulk seeding slowed with every batch (1,000 addresses
 * in one POST: 6, 17, then 29 s on PostgreSQL).
 */
import { startTestApp, type TestApp } from '../support/test-app';
import { seedAddresses } from '../maintenance/support';
import type { QueryEvent } from '../../engine/database/db';

const HOST_INDEX = 'ipam_ipaddress_address_host';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 120_000);
afterAll(async () => {
  await t.close();
});

test('the duplicate-address check of a new address reads the host index, not the whole table', async () => {
  await seedAddresses(t, 3000, 500, (i) => `host-${i}.example.com`);
  await t.knex.raw('ANALYZE "ipam_ipaddress"');
  const seen: QueryEvent[] = [];
  t.knex.on('query', (q) => seen.push(q));
  const res = await t.api.post('/api/ipam/ip-addresses/').set(t.auth).send({ address: '10.0.5.1/24' });
  expect(res.status).toBe(400);
  expect(JSON.stringify(res.body)).toContain('Duplicate IP address');
  // The statements that judge the rule read the other addresses as "o".
  const checks = seen.filter((q) => q.sql.includes('FROM "ipam_ipaddress" AS "o"') && !/^\s*(INSERT|UPDATE|DELETE)/i.test(q.sql));
  expect(checks.length).toBeGreaterThan(0);
  for (const check of checks) {
    const plan = (await t.knex.run<Record<string, string>>({ text: `EXPLAIN ${check.sql}`, values: check.bindings })).rows.map((r) => Object.values(r)[0]).join('\n');
    expect(plan).toContain(HOST_INDEX);
    expect(plan).not.toMatch(/Seq Scan on ipam_ipaddress o\b/);
  }
}, 300_000);
