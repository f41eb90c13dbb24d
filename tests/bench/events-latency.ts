/**
 * `npm run bench:events`: how long healthy webhooks wait for their deliveries while another webhook's
 * receiver never answers. The compiled server (its own dispatcher, default settings unless given), three
 * receivers in this process, two phases on one database:
 *
 *   baseline   healthy A (sites) and healthy B (tenants), no other webhook
 *   hanging    the same, plus a webhook on the same sites whose receiver takes every request and never answers
 *
 * Each phase makes --writes site writes (half creates, half updates of those sites) and as many tenant
 * creates, paced at --rate writes a second; a delivery's latency is from the write's response to the
 * receiver having the request. Reported: p50, p99 and max per healthy webhook, and how many were not made
 * within --drain seconds after the last write.
 *
 *   npm run bench:events                          # PostgreSQL: database patchbay_bench_events on 127.0.0.1, recreated
 *   npm run bench:events -- --embedded            # PGlite in a temp folder
 *   npm run bench:events -- --writes 200 --rate 40 --drain 120
 *   npm run bench:events -- --root /path/to/other/checkout   # another built checkout's server (to compare)
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createSuperuser, startServer, type ServerProcess } from './server-process';
import { sleep, summarize } from './stats';

const ROOT = path.resolve(__dirname, '../..');
const DB = 'patchbay_bench_events';
const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : fallback;
}

async function database(embedded: boolean): Promise<{ env: Record<string, string | undefined>; label: string; cleanup(): void }> {
  if (embedded) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'patchbay-bench-events-'));
    return { env: { DATABASE_URL: undefined, PATCHBAY_DATA_DIR: dir }, label: 'PGlite (embedded)', cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DB}`);
  await admin.end();
  return { env: { DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${DB}` }, label: `PostgreSQL (${DB})`, cleanup: () => undefined };
}

interface Receiver {
  url: string;
  /** Arrival time (performance.now()) by request id. */
  arrived: Map<string, number>;
  requests(): number;
  close(): Promise<void>;
}

/** A receiver answering 200 at once, or (`hang`) never. */
async function receiver(hang: boolean): Promise<Receiver> {
  const arrived = new Map<string, number>();
  let requests = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests++;
      try {
        const rid = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { request_id: string }).request_id;
        if (!arrived.has(rid)) arrived.set(rid, performance.now());
      } catch {
        // not a webhook body: not counted
      }
      if (!hang) res.end('ok');
    });
  });
  server.requestTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    arrived,
    requests: () => requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

class Api {
  constructor(private readonly base: string, private readonly token: string) {}

  async call(method: string, p: string, body: unknown): Promise<{ status: number; json: Record<string, unknown>; rid: string; at: number }> {
    const res = await fetch(this.base + p, { method, headers: { Authorization: `Token ${this.token}`, 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify(body) });
    const json = (await res.json()) as Record<string, unknown>;
    return { status: res.status, json, rid: String(res.headers.get('x-request-id')), at: performance.now() };
  }

  async must(method: string, p: string, body: unknown): Promise<Record<string, unknown>> {
    const r = await this.call(method, p, body);
    if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(r.json)}`);
    return r.json;
  }

  /** A webhook to `url` and a rule sending it every create and update of `type`; the rule's id. */
  async rule(name: string, type: string, url: string): Promise<number> {
    const hook = await this.must('POST', '/api/extras/webhooks/', { name, payload_url: url });
    const rule = await this.must('POST', '/api/extras/event-rules/', { name, content_types: [type], type_create: true, type_update: true, action_object_type: 'extras.webhook', action_object_id: hook.id });
    return rule.id as number;
  }

  async remove(rule: number): Promise<void> {
    const res = await fetch(`${this.base}/api/extras/event-rules/${rule}/`, { method: 'DELETE', headers: { Authorization: `Token ${this.token}` } });
    if (res.status !== 204) throw new Error(`DELETE rule ${rule}: ${res.status}`);
  }
}

interface PhaseResult {
  phase: string;
  lines: string[];
}

async function phase(api: Api, name: string, writes: number, rate: number, drainS: number, hanging: Receiver | null): Promise<PhaseResult> {
  const a = await receiver(false);
  const b = await receiver(false);
  const rules = [await api.rule(`${name}-healthy-sites`, 'dcim.site', a.url), await api.rule(`${name}-healthy-tenants`, 'tenancy.tenant', b.url)];
  const siteWrites = new Map<string, number>();
  const tenantWrites = new Map<string, number>();
  const creates = Math.ceil(writes / 2);
  const sites: number[] = [];
  const jobs: Array<() => Promise<void>> = [];
  for (let i = 0; i < writes; i++) {
    jobs.push(async () => {
      const r = i < creates
        ? await api.call('POST', '/api/dcim/sites/', { name: `${name}-site-${i}`, slug: `${name}-site-${i}` })
        : await api.call('PATCH', `/api/dcim/sites/${sites[i - creates]!}/`, { description: `update ${i}` });
      if (r.status >= 300) throw new Error(`site write: ${r.status} ${JSON.stringify(r.json)}`);
      if (i < creates) sites[i] = r.json.id as number;
      siteWrites.set(r.rid, r.at);
    });
    jobs.push(async () => {
      const r = await api.call('POST', '/api/tenancy/tenants/', { name: `${name}-tenant-${i}`, slug: `${name}-tenant-${i}` });
      if (r.status >= 300) throw new Error(`tenant write: ${r.status} ${JSON.stringify(r.json)}`);
      tenantWrites.set(r.rid, r.at);
    });
  }
  // Creates first in each pair so an update never runs before its site exists: a site's update comes `creates` writes later.
  const t0 = performance.now();
  const running = new Set<Promise<void>>();
  for (const [k, job] of jobs.entries()) {
    await sleep(Math.max(0, t0 + (k * 1000) / rate - performance.now()));
    if (k >= creates * 2) while (sites.length < creates || sites.some((s) => s === undefined)) await sleep(5);
    const p = job().finally(() => running.delete(p));
    running.add(p);
    if (running.size >= 16) await Promise.race(running);
  }
  await Promise.all(running);
  const writtenAt = performance.now();
  const done = () => [...siteWrites.keys()].every((r) => a.arrived.has(r)) && [...tenantWrites.keys()].every((r) => b.arrived.has(r));
  while (!done() && performance.now() - writtenAt < drainS * 1000) await sleep(50);
  const lines: string[] = [];
  for (const [label, writesAt, rx] of [['healthy webhook, the same sites', siteWrites, a], ['healthy webhook, tenants', tenantWrites, b]] as const) {
    const latencies = [...writesAt].filter(([rid]) => rx.arrived.has(rid)).map(([rid, at]) => Math.max(0, rx.arrived.get(rid)! - at));
    const s = summarize(latencies);
    const missing = writesAt.size - latencies.length;
    lines.push(`| ${name} | ${label} | ${writesAt.size} | ${(s.p50 / 1000).toFixed(2)} | ${(s.p99 / 1000).toFixed(2)} | ${(s.max / 1000).toFixed(2)} | ${missing} |`);
  }
  if (hanging) lines.push(`| ${name} | (the webhook that never answers: ${hanging.requests()} requests made to it) | | | | | |`);
  // The phase's webhooks go with it: the next phase measures its own.
  for (const r of rules) await api.remove(r);
  await a.close();
  await b.close();
  return { phase: name, lines };
}

async function main(): Promise<void> {
  const embedded = process.argv.includes('--embedded');
  const writes = Number(arg('writes', '400'));
  const rate = Number(arg('rate', '20'));
  const drainS = Number(arg('drain', '120'));
  const root = path.resolve(arg('root', ROOT));
  const db = await database(embedded);
  let server: ServerProcess | null = null;
  const hanging = await receiver(true);
  try {
    const token = await createSuperuser(db.env, root);
    server = await startServer(db.env, token, path.join(ROOT, 'test-output', 'bench-events-server.log'), root);
    const api = new Api(server.baseUrl, token);
    const header = ['| phase | deliveries of | n | p50 s | p99 s | max s | not made |', '|---|---|---:|---:|---:|---:|---:|'];
    console.log(`\n${db.label}, server from ${root}; ${writes} site writes and ${writes} tenant creates per phase at ${rate}/s; drain ${drainS} s\n`);
    console.log(header.join('\n'));
    const baseline = await phase(api, 'baseline', writes, rate, drainS, null);
    console.log(baseline.lines.join('\n'));
    await api.rule('never-answers', 'dcim.site', hanging.url);
    const beside = await phase(api, 'hanging', writes, rate, drainS, hanging);
    console.log(beside.lines.join('\n'));
    fs.mkdirSync(path.join(ROOT, 'test-output'), { recursive: true });
    const out = path.join(ROOT, 'test-output', `bench-events-${embedded ? 'pglite' : 'postgres'}.md`);
    fs.writeFileSync(out, `${db.label}, server from ${root}; ${writes} site writes and ${writes} tenant creates per phase at ${rate}/s\n\n${[...header, ...baseline.lines, ...beside.lines].join('\n')}\n`);
  } finally {
    await hanging.close();
    await server?.stop();
    db.cleanup();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
