import fs from 'node:fs';
import knexLib, { Knex } from 'knex';
import pg from 'pg';
import ClientPgLite from 'knex-pglite';
import { PGlite } from '@electric-sql/pglite';
import { lockDataDir, type DataDirLock } from './data-dir-lock';

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
  let lock: DataDirLock | null = null;
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
      lock = await lockDataDir(opts.dataDir);
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
    close: async () => {
      await knex.destroy();
      await lock?.release();
    },
  };
}
