import path from 'node:path';
import os from 'node:os';
import fs from 'node:fs';
import crypto from 'node:crypto';
import { createServer, type RequestListener, type Server } from 'node:http';
import supertest from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { createApp } from '../../engine/app';
import { loadConfig, type Config } from '../../engine/config';
import { loadRegistry } from '../../engine/boot';
import { connectDatabase, type Database } from '../../engine/database/connect';
import { migrate } from '../../engine/migrations/migrator';
import { openMigratedPglite } from './migrated-pglite';
import { fillFromTemplate } from './migrated-schema';
import { HEARTBEAT_TABLE } from '../../engine/migrations/replica-tables';
import type { Registry } from '../../engine/definitions/registry-types';
import type { Clock } from '../../engine/auth/clock';
import { closeSharedSandbox } from '../../engine/sandbox/shared-sandbox';
import type { DbHandle } from '../../engine/database/db';
import { startMaintenance } from '../../engine/maintenance/start-maintenance';

const ROOT = path.resolve(__dirname, '..', '..');

/** A clock tests move by hand instead of sleeping. */
export class TestClock implements Clock {
  private offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

/** Which database the suite runs on: PostgreSQL when TEST_DATABASE_URL is set, else embedded PGlite. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;

export interface TestApp {
  api: TestAgent;
  registry: Registry;
  knex: DbHandle;
  db: Database;
  config: Config;
  /** A superuser's write-enabled token. */
  token: string;
  auth: { Authorization: string };
  /** The app's clock: starts at the real time, moves only when told (token expiry and last-use tests). */
  clock: TestClock;
  /** SQL statements run since the last reset. */
  queries: { count: number; reset(): void; log: string[] };
  /**
   * The app on a port of its own for the rest of the file, closed with the test app. supertest handed an
   * app (not a server) listens on a new port for every request and closes it after: three quarters of a
   * simple request's time here, and tens of thousands of requests in the generated suites.
   */
  serve(app: RequestListener): Server;
  /** Creates a user and returns a new token of theirs. */
  makeToken(opts?: { superuser?: boolean; writeEnabled?: boolean; username?: string }): Promise<string>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  schemaDir?: string;
  migrationsDir?: string;
  /**
   * Start table maintenance as `serve` does (engine/maintenance), unless the configuration turns it off
   * (PATCHBAY_MAINTENANCE=off). Off by default: its statements would add to the counts other tests assert.
   */
  maintenance?: boolean;
}

/**
 * A fresh database for one test file (a new schema on PostgreSQL, a new in-memory PGlite otherwise),
 * migrated with the committed migrations, and the app over real HTTP through supertest.
 */
export async function startTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  // Uploaded files go to a folder of this app's own, removed with it.
  const media = fs.mkdtempSync(path.join(os.tmpdir(), 'patchbay-media-'));
  const config = loadConfig({
    ...process.env,
    PATCHBAY_SCHEMA_DIR: opts.schemaDir ?? path.join(ROOT, 'schema'),
    PATCHBAY_MIGRATIONS_DIR: opts.migrationsDir ?? path.join(ROOT, 'migrations'),
    PATCHBAY_MEDIA_ROOT: media,
    ...opts.env,
  });
  const registry = loadRegistry(config.schemaDir);
  const schema = TEST_DATABASE_URL ? `t_${crypto.randomBytes(6).toString('hex')}` : undefined;
  if (TEST_DATABASE_URL) await fillFromTemplate(TEST_DATABASE_URL, schema!, config.migrationsDir);
  const db = TEST_DATABASE_URL ? await connectDatabase({ url: TEST_DATABASE_URL, schema, poolMax: 4 }) : await openMigratedPglite(config.migrationsDir);
  await migrate(db.knex, config.migrationsDir, schema);
  // Made from a template migrated earlier: the heartbeat starts at this database's making, as a migration sets it.
  // (A test's own migrations may not make the table.)
  const heartbeat = await db.knex.raw<{ t: string | null }>(`SELECT to_regclass(?)::text AS "t"`, [HEARTBEAT_TABLE]);
  if (heartbeat.rows[0]?.t) await db.knex.raw(`UPDATE "${HEARTBEAT_TABLE}" SET "at" = now()`);

  const queries = { count: 0, log: [] as string[], reset() { this.count = 0; this.log = []; } };
  db.knex.on('query', (q: { sql: string }) => {
    queries.count++;
    queries.log.push(q.sql);
  });

  let users = 0;
  const makeToken: TestApp['makeToken'] = async ({ superuser = false, writeEnabled = true, username } = {}) => {
    users++;
    const name = username ?? `user${users}_${crypto.randomBytes(3).toString('hex')}`;
    const u = await db.knex.raw(
      `INSERT INTO "users_user" ("username", "password", "is_superuser", "is_active", "date_joined") VALUES (?, '!', ?, true, now()) RETURNING "id"`,
      [name, superuser],
    );
    const key = crypto.randomBytes(20).toString('hex');
    await db.knex.raw(`INSERT INTO "users_token" ("user_id", "key", "write_enabled") VALUES (?, ?, ?)`, [(u.rows as Array<{ id: number }>)[0]!.id, key, writeEnabled]);
    return key;
  };
  const token = await makeToken({ superuser: true, username: 'admin' });
  const clock = new TestClock();
  const maintenance = opts.maintenance ? await startMaintenance({ db: db.knex, embedded: db.embedded, config, log: (line) => console.warn(line) }) : null;
  const servers: Server[] = [];
  // listen(0) without a host binds at once (as supertest's own per-request listen does), so the agent can
  // read the address straight away; the same dual-stack socket, so clients are seen as they were.
  const serve = (handler: RequestListener): Server => {
    const server = createServer(handler).listen(0);
    servers.push(server);
    return server;
  };
  const app = createApp({ registry, knex: db.knex, config, version: 'test', embedded: db.embedded, clock, maintenance: maintenance ?? undefined });
  return {
    api: supertest(serve(app)),
    serve,
    registry,
    knex: db.knex,
    db,
    config,
    token,
    auth: { Authorization: `Token ${token}` },
    queries,
    clock,
    makeToken,
    close: async () => {
      await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
      await maintenance?.stop();
      if (schema) await dropSchema(db.knex, schema);
      await db.close();
      // This test file's template sandbox threads (each test file loads its own copy of the modules).
      await closeSharedSandbox();
      fs.rmSync(media, { recursive: true, force: true });
    },
  };
}

/**
 * DROP SCHEMA ... CASCADE locks every object of the schema (thousands) in one transaction; beside another
 * file doing the same, or a migration, the server's shared lock table can run out (53200, "out of shared
 * memory"), which failed a file whose tests had all passed. Tried again once the others are done.
 */
async function dropSchema(db: DbHandle, schema: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await db.raw(`DROP SCHEMA "${schema}" CASCADE`);
      return;
    } catch (e) {
      if ((e as { code?: string }).code !== '53200' || attempt >= 6) throw e;
      await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
    }
  }
}
