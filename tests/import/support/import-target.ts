import crypto from 'node:crypto';
import path from 'node:path';
import { Client } from 'pg';
import { tempDir } from '../../cli/cli-support';

/** The PostgreSQL server a run without TEST_DATABASE_URL imports into. */
export const TARGET_SERVER = 'postgres://postgres@127.0.0.1:5432/test';

/**
 * A fresh database for `patchbay import` to write into, of the other kind than the suite's own: the
 * importer must carry data between the two (issue 24: PostgreSQL -> embedded and back).
 * `env` is what a patchbay command needs to open it; `remove` drops it.
 */
export interface ImportTarget {
  kind: 'embedded' | 'postgresql';
  env: Record<string, string>;
  describe: string;
  remove(): Promise<void>;
}

/** An embedded database folder (and a media folder for the copied images), removed afterwards. */
export function embeddedTarget(name: string): ImportTarget {
  const dir = tempDir(`import-${name}`);
  const env = { PATCHBAY_DATA_DIR: path.join(dir.dir, 'pgdata'), PATCHBAY_MEDIA_ROOT: path.join(dir.dir, 'media') };
  return { kind: 'embedded', env, describe: `embedded database in ${env.PATCHBAY_DATA_DIR}`, remove: async () => dir.remove() };
}

/**
 * A new database on the PostgreSQL server (the CLI takes no schema: DATABASE_URL names a database, and
 * migrations go to its public schema), named with "seed" so a run's leftovers are known to be this file's.
 */
export async function postgresTarget(name: string): Promise<ImportTarget> {
  const db = `pb_import_seed_${name}_${crypto.randomBytes(4).toString('hex')}`;
  await withServer((c) => c.query(`CREATE DATABASE "${db}"`));
  const media = tempDir(`import-${name}-media`);
  const url = new URL(TARGET_SERVER);
  url.pathname = `/${db}`;
  return {
    kind: 'postgresql',
    env: { DATABASE_URL: url.toString(), PATCHBAY_MEDIA_ROOT: media.dir },
    describe: `PostgreSQL database ${db}`,
    remove: async () => {
      media.remove();
      await withServer((c) => c.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`));
    },
  };
}

/** Whether the PostgreSQL server answers; the reason when it does not. */
export async function postgresReachable(): Promise<string | null> {
  try {
    await withServer((c) => c.query('SELECT 1'));
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

async function withServer<T>(fn: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: TARGET_SERVER, connectionTimeoutMillis: 5000 });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}
