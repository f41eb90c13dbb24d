/**
 * `npm run bench:allocation`: allocation at scale, apart from the baseline's scenarios (NetBox's baseline
 * has no allocation figures; its nearest is a single IP address POST, create_single). A /16 with 50,000
 * addresses used from its start (so the first free address lies past all of them: the gap search's worst
 * case), and an IPv6 /64 with a few addresses. Measured one request at a time (p50, p99 over --requests):
 *   GET  /api/ipam/prefixes/{id}/available-ips/?limit=50   on the /16 and on the /64
 *   POST /api/ipam/prefixes/{id}/available-ips/ {}          one address, on the /16 and on the /64
 *
 *   npm run bench:allocation                 # PostgreSQL: database patchbay_bench_alloc on 127.0.0.1, recreated
 *   npm run bench:allocation -- --embedded   # PGlite in a temp folder
 *   npm run bench:allocation -- --used 5000 --requests 50
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ApiClient, excerpt, type JsonValue } from './http-client';
import { createSuperuser, startServer, type ServerProcess } from './server-process';
import { summarize } from './stats';

const ROOT = path.resolve(__dirname, '../..');
const DB = 'patchbay_bench_alloc';
const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

async function database(embedded: boolean): Promise<{ env: Record<string, string | undefined>; label: string; cleanup(): void }> {
  if (embedded) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'patchbay-bench-alloc-'));
    return { env: { DATABASE_URL: undefined, PATCHBAY_DATA_DIR: dir }, label: 'PGlite (embedded)', cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DB}`);
  await admin.end();
  return { env: { DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${DB}` }, label: `PostgreSQL (${DB})`, cleanup: () => undefined };
}

async function must(api: ApiClient, method: string, url: string, body?: JsonValue): Promise<JsonValue | undefined> {
  const r = await api.request(method, url, body);
  if (r.status >= 300) throw new Error(`${method} ${url}: ${excerpt(r)}`);
  return r.json;
}

async function measure(label: string, n: number, call: () => Promise<{ status: number; ms: number }>, expect: number): Promise<string> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = await call();
    if (r.status !== expect) throw new Error(`${label}: status ${r.status}`);
    ms.push(r.ms);
  }
  const s = summarize(ms);
  const line = `| ${label} | ${n} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} |`;
  console.log(line);
  return line;
}

async function main(): Promise<void> {
  const embedded = process.argv.includes('--embedded');
  const used = arg('used', 50_000);
  const requests = arg('requests', 200);
  const db = await database(embedded);
  let server: ServerProcess | null = null;
  try {
    const token = await createSuperuser(db.env);
    server = await startServer(db.env, token, path.join(ROOT, 'test-output', 'bench-allocation-server.log'));
    const api = new ApiClient(server.baseUrl, token);
    const v4 = (await must(api, 'POST', '/api/ipam/prefixes/', { prefix: '10.100.0.0/16', status: 'active' })) as { id: number };
    const v6 = (await must(api, 'POST', '/api/ipam/prefixes/', { prefix: '2001:db8:100::/64', status: 'active' })) as { id: number };
    const t0 = performance.now();
    for (let start = 0; start < used; start += 2000) {
      const batch: JsonValue[] = [];
      for (let i = start; i < Math.min(used, start + 2000); i++) batch.push({ address: `10.100.${Math.floor((i + 1) / 256)}.${(i + 1) % 256}/16` });
      await must(api, 'POST', '/api/ipam/ip-addresses/', batch);
    }
    await must(api, 'POST', '/api/ipam/ip-addresses/', [{ address: '2001:db8:100::1/64' }, { address: '2001:db8:100::3/64' }]);
    console.log(`seeded ${used} addresses in the /16 in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    if (!embedded) {
      const c = new pg.Client({ connectionString: db.env.DATABASE_URL });
      await c.connect();
      await c.query('VACUUM (ANALYZE)');
      await c.end();
    }
    const first = (await must(api, 'GET', `/api/ipam/prefixes/${v4.id}/available-ips/?limit=50`)) as Array<{ address: string }>;
    const expected = `10.100.${Math.floor((used + 1) / 256)}.${(used + 1) % 256}/16`;
    if (first.length !== 50 || first[0]!.address !== expected) throw new Error(`first free address ${first[0]?.address}, expected ${expected}`);
    console.log(`\n${db.label}, ${used} addresses used, ${requests} requests each, one at a time\n`);
    const lines = ['| request | n | p50 ms | p99 ms |', '|---|---:|---:|---:|'];
    console.log(lines.join('\n'));
    lines.push(await measure('GET available-ips?limit=50 (/16)', requests, () => api.request('GET', `/api/ipam/prefixes/${v4.id}/available-ips/?limit=50`), 200));
    lines.push(await measure('POST available-ips, one address (/16)', requests, () => api.request('POST', `/api/ipam/prefixes/${v4.id}/available-ips/`, {}), 201));
    lines.push(await measure('GET available-ips?limit=50 (IPv6 /64)', requests, () => api.request('GET', `/api/ipam/prefixes/${v6.id}/available-ips/?limit=50`), 200));
    lines.push(await measure('POST available-ips, one address (IPv6 /64)', requests, () => api.request('POST', `/api/ipam/prefixes/${v6.id}/available-ips/`, {}), 201));
    fs.mkdirSync(path.join(ROOT, 'test-output'), { recursive: true });
    fs.writeFileSync(path.join(ROOT, 'test-output', `bench-allocation-${embedded ? 'pglite' : 'postgres'}.md`), `${db.label}, ${used} addresses used\n\n${lines.join('\n')}\n`);
  } finally {
    await server?.stop();
    db.cleanup();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
