import crypto from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { createApp } from '../../../engine/app';
import { connectDatabase, type Database } from '../../../engine/database/connect';
import { startTestApp, TEST_DATABASE_URL, type TestApp } from '../../support/test-app';

/**
 * Several instances of the app on one PostgreSQL schema, as separate processes behind a load balancer
 * would be: each with its own connection pool and its own HTTP port. Every instance connection carries
 * the cluster's application_name, so the suite can see in pg_stat_activity which of its requests wait
 * on a lock (the barrier), and a statement_timeout, so a runaway query on old code cannot outlive the test.
 */

export interface Reply {
  status: number;
  body: unknown;
}

export interface Instance {
  base: string;
  request(method: string, path: string, auth: { Authorization: string }, body?: unknown): Promise<Reply>;
}

/** A transaction on a connection of its own, holding locks the instances' requests will queue behind. */
export interface Holder {
  /** Runs a statement inside the held transaction (search_path is the test schema). */
  sql(text: string, values?: unknown[]): Promise<pg.QueryResult>;
  /** Commits, letting every queued request go on. */
  release(): Promise<void>;
}

export interface Cluster {
  t: TestApp;
  /** At least two. */
  instances: [Instance, Instance, ...Instance[]];
  /** BEGINs a transaction on a fresh connection and runs the given locking statements in it. */
  hold(...statements: string[]): Promise<Holder>;
  /**
   * Resolves once `n` of the given requests are either waiting on a lock in PostgreSQL or answered:
   * every conflicting request has reached the point where it overlaps the others. False if that
   * does not happen within the bound (the round then counts as not overlapped).
   */
  overlapped(n: number, pending: Array<Promise<unknown>>): Promise<boolean>;
  /**
   * One round of a race: a holder takes the given locks; `first` is sent and runs until it waits (or
   * answers); `second` is sent and runs until it waits (or answers); then the holder lets both go on.
   */
  race(hold: string[], first: () => Promise<Reply>, second: () => Promise<Reply>): Promise<{ first: Reply; second: Reply; overlapped: boolean }>;
  close(): Promise<void>;
}

/** How long one request may take before it counts as unanswered (a hang on old code). */
export const REQUEST_TIMEOUT_MS = 8000;

function withParams(url: string, params: Record<string, string>): string {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}

async function listen(db: Database, t: TestApp): Promise<{ server: Server; base: string }> {
  const app = createApp({ registry: t.registry, knex: db.knex, config: t.config, version: 'test', embedded: false, clock: t.clock });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function instanceAt(base: string): Instance {
  return {
    base,
    async request(method, path, auth, body) {
      try {
        const res = await fetch(base + path, {
          method,
          headers: { ...auth, Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        const text = await res.text();
        return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
      } catch (e) {
        if ((e as Error).name === 'TimeoutError') return { status: 0, body: 'no answer' };
        throw e;
      }
    },
  };
}

/** A fresh test schema on PostgreSQL, served by `count` instances with separate pools. */
export async function startCluster(count = 2, env: Record<string, string> = {}): Promise<Cluster> {
  if (!TEST_DATABASE_URL) throw new Error('the concurrency suite needs TEST_DATABASE_URL');
  const t = await startTestApp({ env });
  const appName = `patchbay_conc_${crypto.randomBytes(4).toString('hex')}`;
  const url = withParams(TEST_DATABASE_URL, { application_name: appName, options: '-c statement_timeout=20000' });
  const dbs: Database[] = [];
  const servers: Server[] = [];
  const instances: Instance[] = [];
  for (let i = 0; i < count; i++) {
    const db = await connectDatabase({ url, schema: t.db.schema, poolMax: 4 });
    const { server, base } = await listen(db, t);
    dbs.push(db);
    servers.push(server);
    instances.push(instanceAt(base));
  }
  const holders: pg.Client[] = [];
  const monitor = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await monitor.connect();

  const waiting = async (): Promise<number> => {
    const r = await monitor.query(`SELECT count(*)::int AS "n" FROM pg_stat_activity WHERE "application_name" = $1 AND "wait_event_type" = 'Lock'`, [appName]);
    return (r.rows as Array<{ n: number }>)[0]!.n;
  };

  if (instances.length < 2) throw new Error('a cluster has at least two instances');

  const hold: Cluster['hold'] = async (...statements) => {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    holders.push(client);
    await client.query(`SET search_path TO "${t.db.schema!}"`);
    await client.query('BEGIN');
    for (const s of statements) await client.query(s);
    return {
      sql: (text, values) => client.query(text, values),
      async release() {
        await client.query('COMMIT');
        await client.end();
        holders.splice(holders.indexOf(client), 1);
      },
    };
  };

  const overlapped: Cluster['overlapped'] = async (n, pending) => {
    let settled = 0;
    for (const p of pending) void p.then(() => settled++, () => settled++);
    for (let i = 0; i < 500; i++) {
      if ((await waiting()) + settled >= n) return true;
      await new Promise((r) => setTimeout(r, 10));
    }
    return false;
  };

  return {
    t,
    instances: instances as Cluster['instances'],
    hold,
    overlapped,
    async race(locks, first, second) {
      const h = await hold(...locks);
      const a = first();
      const b = (await overlapped(1, [a])) ? second() : a.then(() => second());
      const both = await overlapped(2, [a, b]);
      await h.release();
      return { first: await a, second: await b, overlapped: both };
    },
    async close() {
      for (const h of holders) await h.end().catch(() => undefined);
      // Backends of this cluster still running (a runaway recursive query on old code) are ended by pid.
      await monitor.query(`SELECT pg_terminate_backend("pid") FROM pg_stat_activity WHERE "application_name" = $1 AND "pid" <> pg_backend_pid()`, [appName]);
      await monitor.end();
      for (const s of servers) await new Promise<void>((resolve) => s.close(() => resolve()));
      for (const db of dbs) await db.close().catch(() => undefined);
      await t.close();
    },
  };
}

/** One line per scenario, so a run shows what it measured. */
export function report(name: string, counts: Record<string, number>): void {
  process.stdout.write(`[concurrency] ${name}: ${Object.entries(counts).map(([k, v]) => `${k}=${v}`).join(' ')}\n`);
}
