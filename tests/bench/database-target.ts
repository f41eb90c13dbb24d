import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { DatabaseOptions } from '../../engine/database/connect';
import { parsePoolMode } from '../../engine/database/pool-mode';

/** Where the benchmarked server keeps its data, and how the bench itself reaches the same rows. */
export interface DatabaseTarget {
  /** What the report names: "PostgreSQL (patchbay_bench)" or "PGlite (embedded)". */
  label: string;
  embedded: boolean;
  /** Environment for the server and createsuperuser children (replaces DATABASE_URL / PATCHBAY_DATA_DIR). */
  env: Record<string, string | undefined>;
  /** For connectDatabase() in the raw-SQL phase (run after the server stopped: PGlite is single-process). */
  connection: DatabaseOptions;
  /** Whether the database was made empty for this run (a DATABASE_URL the user gave is not). */
  fresh: boolean;
  cleanup(): Promise<void>;
}

const BENCH_DB = 'patchbay_bench';
const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** database patchbay_bench on the local server, dropped and created again. */
async function recreateBenchDatabase(): Promise<string> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${BENCH_DB} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${BENCH_DB}`);
  } finally {
    await client.end();
  }
  return `postgres://postgres@127.0.0.1:5432/${BENCH_DB}`;
}

export async function prepareDatabase(embedded: boolean): Promise<DatabaseTarget> {
  if (embedded) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'patchbay-bench-'));
    return {
      label: 'PGlite (embedded, temp folder)',
      embedded: true,
      env: { DATABASE_URL: undefined, PATCHBAY_DATA_DIR: dir },
      connection: { dataDir: dir },
      fresh: true,
      cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const given = process.env.DATABASE_URL;
  if (given) {
    if (!['127.0.0.1', 'localhost'].includes(new URL(given).hostname)) {
      throw new Error('DATABASE_URL must point at a PostgreSQL server on 127.0.0.1 (the bench keeps its traffic local)');
    }
    return {
      label: 'PostgreSQL (DATABASE_URL)',
      embedded: false,
      env: { DATABASE_URL: given },
      // The raw phase reaches the rows as the server does: through a transaction-mode pooler too.
      connection: { url: given, poolMax: 8, poolMode: parsePoolMode(process.env.DATABASE_POOL_MODE) },
      fresh: false,
      cleanup: async () => undefined,
    };
  }
  const url = await recreateBenchDatabase();
  return {
    label: `PostgreSQL (${BENCH_DB} on 127.0.0.1, recreated)`,
    embedded: false,
    env: { DATABASE_URL: url },
    connection: { url, poolMax: 8 },
    fresh: true,
    cleanup: async () => undefined,
  };
}

