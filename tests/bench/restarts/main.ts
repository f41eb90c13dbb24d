/**
 * `npm run bench:restarts`: rolling restarts behind a load balancer, counted from the clients' side.
 *
 * N server instances (one process each) on one PostgreSQL database; keep-alive clients (node:http agents,
 * fetch, and a python requests.Session as pynetbox uses, if python3 has requests) spread a steady stream of
 * reads and writes over them round-robin, retrying a refused request on the next instance as a load balancer
 * does. Meanwhile each instance in turn gets SIGTERM, is waited for, and is started again. Every request ends
 * answered, 5xx, refused (safe to retry) or lost (reset or hang-up after it was sent: the client cannot know
 * whether it was processed). A rolling restart must lose nothing. Writes test-output/restarts-<date>.md.
 *
 * --health-check-ms N makes the clients route as a health-checking load balancer does: each instance's
 * /api/status/ is polled every N ms, and an instance whose last check was not a 200 gets no new requests
 * until it answers 200 again. Without it, every instance gets its turn (the old behaviour, for comparison).
 * The instances inherit the environment, so PATCHBAY_DRAIN_DELAY=1 npm run bench:restarts ... sets their
 * drain delay.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { createSuperuser, freePort } from '../server-process';
import { sleep } from '../stats';
import { agentClients, fetchClients, type Work } from './clients';
import { healthChecks } from './health-checks';
import { instance } from './instance';
import { OUTCOMES, addTally, emptyTally, lost, type Tally } from './tally';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const ADMIN_URL = process.env.RESTARTS_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB = 'patchbay_restarts';

function flag(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const n = Number(args[i + 1]);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} needs a positive whole number`);
  return n;
}

async function recreateDatabase(): Promise<string> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  await c.query(`CREATE DATABASE ${DB}`);
  await c.end();
  const u = new URL(ADMIN_URL);
  u.pathname = `/${DB}`;
  return u.toString();
}

/** The python client's tally, or null when python3 with requests is not there. */
function sessionClient(w: Work, healthCheckMs: number): { done: Promise<Partial<Tally> | null>; stop(): void } {
  const args = [path.join(__dirname, 'session-client.py'), w.token, String(healthCheckMs), ...w.urls];
  const child = spawn('python3', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const done = new Promise<Partial<Tally> | null>((resolve) => {
    child.once('error', () => resolve(null));
    child.once('exit', () => {
      try {
        resolve(JSON.parse(out) as Partial<Tally>);
      } catch {
        if (err) console.error(`python client: ${err.trim().split('\n').pop()}`);
        resolve(null);
      }
    });
  });
  return { done, stop: () => child.kill('SIGTERM') };
}

function table(rows: Array<[string, Tally]>): string {
  const head = `| client | ${OUTCOMES.join(' | ')} | lost |\n|---|${OUTCOMES.map(() => '---:').join('|')}|---:|`;
  return [head, ...rows.map(([name, t]) => `| ${name} | ${OUTCOMES.map((k) => t[k]).join(' | ')} | ${lost(t)} |`)].join('\n');
}

async function main(args: string[]): Promise<number> {
  const count = flag(args, '--instances', 3);
  const rounds = flag(args, '--rounds', 2);
  const clients = flag(args, '--clients', 4);
  const pauseMs = flag(args, '--pause', 2) * 1000;
  const healthCheckMs = args.includes('--health-check-ms') ? flag(args, '--health-check-ms', 0) : 0;
  const dbUrl = await recreateDatabase();
  const env = { DATABASE_URL: dbUrl, PATCHBAY_WORKERS: '1' };
  const token = await createSuperuser(env);
  const logDir = path.join(ROOT, 'test-output', 'restarts-logs');
  fs.mkdirSync(logDir, { recursive: true });
  const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
  const instances = ports.map((p, i) => instance(p, env, path.join(logDir, `instance-${i}.log`)));
  for (const inst of instances) await inst.start();
  console.log(`${count} instances up (${ports.join(', ')}); ${clients} node:http + ${clients} fetch loops + 1 python Session`);

  const urls = instances.map((i) => i.url);
  const rotation = healthCheckMs ? healthChecks(urls, healthCheckMs) : undefined;
  const w: Work = { urls, token, stop: { now: false }, rotation };
  const agentDone = agentClients(clients, w);
  const fetchDone = fetchClients(clients, w);
  const python = sessionClient(w, healthCheckMs);
  await sleep(pauseMs);
  const exits: Array<number | null> = [];
  const started = Date.now();
  for (let r = 0; r < rounds; r++) {
    for (const inst of instances) {
      exits.push(await inst.stop());
      await inst.start();
      await sleep(pauseMs);
    }
  }
  const seconds = (Date.now() - started) / 1000;
  w.stop.now = true;
  python.stop();
  const [agentTally, fetchTally, pyTally] = await Promise.all([agentDone, fetchDone, python.done]);
  rotation?.stop();
  for (const inst of instances) await inst.stop();

  const rows: Array<[string, Tally]> = [[`node:http keep-alive agent x${clients}`, agentTally], [`fetch (undici) x${clients}`, fetchTally]];
  if (pyTally) {
    const t = emptyTally();
    addTally(t, pyTally);
    rows.push(['python requests.Session x1', t]);
  }
  const total = emptyTally();
  for (const [, t] of rows) addTally(total, t);
  rows.push(['all', total]);
  const restarts = rounds * count;
  const text = [
    `# Rolling restarts (${new Date().toISOString()})`,
    '',
    `Command: \`npm run bench:restarts -- ${args.join(' ')}\``.replace(/ -- `$/, '`'),
    '',
    `${count} instances (1 process each) on PostgreSQL, ${restarts} restarts (SIGTERM, wait for exit, start, ${pauseMs / 1000} s pause) in ${seconds.toFixed(0)} s; exit codes ${[...new Set(exits)].join(', ')}.`,
    `Routing: ${healthCheckMs ? `health check every ${healthCheckMs} ms, out of rotation on the first non-200` : 'round-robin over all instances, no health checks'}; PATCHBAY_DRAIN_DELAY=${process.env.PATCHBAY_DRAIN_DELAY ?? '(unset: 0)'}.`,
    'Refused requests were retried on the next instance (counted once per refusal); lost = reset/hang-up after sending + hung + 5xx.',
    '',
    table(rows),
    '',
    `Lost per restart: ${(lost(total) / restarts).toFixed(2)}`,
  ].join('\n');
  console.log(text);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const file = path.join(ROOT, 'test-output', `restarts-${stamp}.md`);
  fs.writeFileSync(file, `${text}\n`);
  console.log(`\nreport: ${path.relative(ROOT, file)}`);
  return lost(total) === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e);
    process.exit(2);
  },
);
