import fs from 'node:fs';
import knexLib, { Knex } from 'knex';
import pg from 'pg';
import { pgliteClientClass } from './pglite-client';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { lockDataDir, type DataDirLock } from './data-dir-lock';
import { pgClientClass } from './pg-client';

// Ids are bigint columns; they stay far below 2^53, so clients get numbers as NetBox gives them.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1016 as Parameters<typeof pg.types.setTypeParser>[0], (v: string) => (v === '{}' ? [] : v.slice(1, -1).split(',').map(Number)));

export interface DatabaseOptions {
  /** postgres://... for a server; absent for the embedded database. */
  url?: string;
  /** Embedded database folder; absent keeps it in memory. */
  dataDir?: string;
  /** A schema to work in (tests use one per file); created when missing. */
  schema?: string;
  poolMax?: number;
  /** Limits on a PostgreSQL server; none when absent. The embedded database runs in-process: none apply. */
  limits?: DatabaseLimits;
}

/** Milliseconds; 0 means no limit. */
export interface DatabaseLimits {
  /** statement_timeout, enforced by the server. */
  statementTimeoutMs: number;
  /** How long a query may go unanswered before the client drops its connection (a frozen server enforces nothing). */
  queryTimeoutMs: number;
  /** Opening a connection, through authentication. */
  connectTimeoutMs: number;
  /** Waiting for a free connection from the pool, connecting included. */
  acquireTimeoutMs: number;
}

export interface Database {
  knex: Knex;
  embedded: boolean;
  schema: string | undefined;
  close(): Promise<void>;
}

/** One handle for both back ends: PostgreSQL through pg, or embedded PostgreSQL (PGlite) in-process. */
export async function connectDatabase(opts: DatabaseOptions): Promise<Database> {
  let knex: Knex;
  let lock: DataDirLock | null = null;
  if (opts.url) {
    const limits = opts.limits;
    knex = knexLib({
      client: pgClientClass({ queryTimeoutMs: limits?.queryTimeoutMs ?? 0 }),
      connection: {
        connectionString: opts.url,
        application_name: 'patchbay',
        // A read is one statement whose many correlated sub-selects make the planner's cost estimates large,
        // which would have PostgreSQL JIT-compile it: seconds of compiling for milliseconds of work. Set at
        // connection start-up, so it costs no round trip.
        options: '-c jit=off',
        ...(limits ? { statement_timeout: limits.statementTimeoutMs, connectionTimeoutMillis: limits.connectTimeoutMs } : {}),
      },
      pool: { min: 0, max: opts.poolMax ?? 10 },
      ...(limits?.acquireTimeoutMs ? { acquireConnectionTimeout: limits.acquireTimeoutMs } : {}),
      searchPath: opts.schema ? [opts.schema] : undefined,
      // knex would otherwise paste the bound values (token keys, passwords) into error messages and logs.
      compileSqlOnError: false,
      log: quietKnexLog,
    });
  } else {
    if (opts.dataDir) {
      fs.mkdirSync(opts.dataDir, { recursive: true });
      lock = await lockDataDir(opts.dataDir);
    }
    // pg_trgm ships with PGlite as a loadable extension; the migration that needs it creates it.
    const pglite = new PGlite({ dataDir: opts.dataDir, extensions: { pg_trgm } });
    knex = knexLib({
      client: pgliteClientClass(),
      dialect: 'postgres',
      connection: { pglite } as unknown as Knex.StaticConnectionConfig,
      searchPath: opts.schema ? [opts.schema] : undefined,
      compileSqlOnError: false,
    });
  }
  if (opts.schema) {
    await knex.raw(`CREATE SCHEMA IF NOT EXISTS "${opts.schema.replace(/"/g, '')}"`);
  }
  return {
    knex,
    embedded: !opts.url,
    schema: opts.schema,
    close: async () => {
      await knex.destroy();
      await lock?.release();
    },
  };
}

/**
 * knex warns, with a stack, on each failed connection attempt and each retired connection. Both reach the
 * code that asked for the connection (a 503, a startup retry line); a second, multi-line report of them
 * would bury the log during an outage. Other warnings pass, on one line.
 */
const quietKnexLog: Knex.Logger = {
  warn(message: string) {
    if (/^(Acquire connection error|Connection Error):/.test(message)) return;
    console.error(`knex: ${message.split('\n')[0]}`);
  },
};
