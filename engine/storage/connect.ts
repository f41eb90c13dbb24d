import fs from 'node:fs';
import path from 'node:path';
import knexLib, { Knex } from 'knex';
import pg from 'pg';
import ClientPgLite from 'knex-pglite';
import { PGlite } from '@electric-sql/pglite';

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
  if (opts.url) {
    knex = knexLib({
      client: 'pg',
      connection: opts.url,
      pool: { min: 0, max: opts.poolMax ?? 10 },
      searchPath: opts.schema ? [opts.schema] : undefined,
    });
  } else {
    if (opts.dataDir) {
      fs.mkdirSync(opts.dataDir, { recursive: true });
      lockDataDir(opts.dataDir);
    }
    const pglite = new PGlite(opts.dataDir);
    knex = knexLib({
      client: ClientPgLite as unknown as typeof knexLib.Client,
      dialect: 'postgres',
      connection: { pglite } as unknown as Knex.StaticConnectionConfig,
      searchPath: opts.schema ? [opts.schema] : undefined,
    });
  }
  if (opts.schema) {
    await knex.raw(`CREATE SCHEMA IF NOT EXISTS "${opts.schema.replace(/"/g, '')}"`);
  }
  return {
    knex,
    embedded: !opts.url,
    schema: opts.schema,
    close: () => knex.destroy(),
  };
}

/**
 * The embedded database is one process's: a second process on the same folder would see a stale copy
 * and lose its writes. A lock file naming the owner's pid makes the second one stop with a clear error.
 */
function lockDataDir(dir: string): void {
  const lock = path.join(dir, 'patchbay.pid');
  try {
    const pid = Number(fs.readFileSync(lock, 'utf8'));
    if (pid && pid !== process.pid && processAlive(pid)) {
      throw new Error(`the embedded database in ${dir} is in use by process ${pid}; stop it first (or use DATABASE_URL for a shared server)`);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  fs.writeFileSync(lock, String(process.pid));
  process.once('exit', () => {
    try {
      if (fs.readFileSync(lock, 'utf8') === String(process.pid)) fs.unlinkSync(lock);
    } catch {
      // Already gone.
    }
  });
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
