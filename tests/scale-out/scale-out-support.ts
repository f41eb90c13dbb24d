import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';

/** The scale-out suite runs only where tests/scale-out/run.sh has made a primary and a standby. */
export const PRIMARY_URL = process.env.SCALE_OUT_PRIMARY_URL;
export const STANDBY_URL = process.env.SCALE_OUT_STANDBY_URL;
/** describe where the cluster is, describe.skip elsewhere (decided when called, so benches can share this file). */
export function describeScaleOut(name: string, body: () => void): void {
  (PRIMARY_URL && STANDBY_URL && process.env.SCALE_OUT_CLUSTER ? describe : describe.skip)(name, body);
}

const ROOT = path.resolve(__dirname, '..', '..');
const BIN = path.join(ROOT, 'engine', 'cli', 'bin.cjs');

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** tools/replication/cluster.sh, on the suite's cluster: `delay 1000`, `standby-stop`... */
export function cluster(...args: string[]): void {
  execFileSync('bash', [process.env.SCALE_OUT_CLUSTER!, ...args], { stdio: 'inherit', timeout: 120_000 });
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A database of the test file's own on the primary, there on the standby too once it is replayed. */
export async function ownDatabase(prefix: string): Promise<{ primary: string; standby: string; drop(): Promise<void> }> {
  const name = `${prefix}_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PRIMARY_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const standby = withDatabase(STANDBY_URL!, name);
  for (let i = 0; ; i++) {
    const c = new pg.Client({ connectionString: standby });
    try {
      await c.connect();
      await c.end();
      break;
    } catch (e) {
      await c.end().catch(() => undefined);
      if (i > 600) throw e;
      await sleep(100);
    }
  }
  return {
    primary: withDatabase(PRIMARY_URL!, name),
    standby,
    drop: async () => {
      const c = new pg.Client({ connectionString: PRIMARY_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

function runCli(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 300_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${args[0]} failed: ${err.message}\n${stdout}${stderr}`));
      else resolve(stdout);
    });
  });
}

export const migrate = (databaseUrl: string) => runCli(['migrate'], { DATABASE_URL: databaseUrl });

/** A superuser made by `createsuperuser`; its token. */
export async function superuser(databaseUrl: string, username: string, password = 'pw-scale-out-1'): Promise<string> {
  const out = await runCli(['createsuperuser', '--username', username, '--password', password], { DATABASE_URL: databaseUrl });
  const token = /[0-9a-f]{40}/.exec(out)?.[0];
  if (!token) throw new Error(`createsuperuser printed no token: ${out}`);
  return token;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface Instance {
  base: string;
  log(): string;
  stop(): Promise<void>;
}

/** `serve` with one worker, on the primary with the standby as replica; resolved once it answers. */
export async function startInstance(db: { primary: string; standby: string }, extra: Record<string, string> = {}): Promise<Instance> {
  const port = await freePort();
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [BIN, 'serve'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: db.primary, DATABASE_REPLICA_URLS: db.standby, PORT: String(port), HOST: '127.0.0.1', PATCHBAY_WORKERS: '1', PATCHBAY_EVENTS_DISPATCH: 'false', ...extra },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`serve exited: ${output}`);
    try {
      if ((await fetch(`${base}/api/status/`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (i > 1200) throw new Error(`serve did not answer: ${output}`);
    await sleep(100);
  }
  return {
    base,
    log: () => output,
    stop: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}

export interface Answer<T = any> {
  status: number;
  body: T;
}

/** One API call with a token, JSON both ways. */
export async function api<T = any>(base: string, token: string, method: string, path: string, body?: unknown): Promise<Answer<T>> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Token ${token}`, Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** What an instance's /api/status/ says of its standby. */
export async function standbyStatus(base: string, token: string): Promise<{ state: string; reads_served: number; reads_sent_to_primary: number; lag_seconds: number | null }> {
  const s = await api(base, token, 'GET', '/api/status/');
  return s.body.patchbay.replicas.standbys[0];
}

/** Waits until the instance counts its standby up (it probes once a second). */
export async function untilStandbyState(base: string, token: string, state: string, timeoutMs = 120_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const s = await standbyStatus(base, token);
    if (s.state === state) return;
    if (Date.now() > end) throw new Error(`standby still ${s.state}, not ${state}`);
    await sleep(200);
  }
}
