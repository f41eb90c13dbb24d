import fs from 'node:fs';
import pg from 'pg';
import type { DbHandle } from './db';
import { openPgDatabase } from './pg-database';
import { openPgliteDatabase } from './pglite-database';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { lockDataDir, type DataDirLock } from './data-dir-lock';
import type { PoolMode } from './pool-mode';

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
  /** How connections reach a PostgreSQL server (pool-mode.ts); session when absent. */
  poolMode?: PoolMode;
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
  /**
   * The database's Db handle (engine/database/db.ts). The field kept knex's name when the layer replaced
   * knex, so code and branches written against it did not all have to be renamed at once.
   */
  knex: DbHandle;
  embedded: boolean;
  schema: string | undefined;
  close(): Promise<void>;
}

/** One handle for both back ends: PostgreSQL through pg.Pool, or embedded PostgreSQL (PGlite) in-process. */
export async function connectDatabase(opts: DatabaseOptions): Promise<Database> {
  let db: DbHandle;
  let lock: DataDirLock | null = null;
  if (opts.url) {
    const limits = opts.limits;
    db = openPgDatabase({
      url: opts.url,
      poolMax: opts.poolMax ?? 10,
      poolMode: opts.poolMode,
      schema: opts.schema,
      statementTimeoutMs: limits?.statementTimeoutMs ?? 0,
      queryTimeoutMs: limits?.queryTimeoutMs ?? 0,
      connectTimeoutMs: limits?.connectTimeoutMs ?? 0,
      acquireTimeoutMs: limits?.acquireTimeoutMs ?? 0,
    });
  } else {
    if (opts.dataDir) {
      fs.mkdirSync(opts.dataDir, { recursive: true });
      lock = await lockDataDir(opts.dataDir);
    }
    // pg_trgm ships with PGlite as a loadable extension; the migration that needs it creates it.
    const pglite = new PGlite({ dataDir: opts.dataDir, extensions: { pg_trgm } });
    db = await openPgliteDatabase(pglite, opts.schema);
  }
  if (opts.schema) {
    await db.raw(`CREATE SCHEMA IF NOT EXISTS "${opts.schema.replace(/"/g, '')}"`);
  }
  return {
    knex: db,
    embedded: !opts.url,
    schema: opts.schema,
    close: async () => {
      await db.destroy();
      await lock?.release();
    },
  };
}
