import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { openPgliteDatabase } from '../../engine/database/pglite-database';
import type { Database } from '../../engine/database/connect';
import { listMigrationFiles } from '../../engine/migrations/migration-files';
import { migrate } from '../../engine/migrations/migrator';

/**
 * An in-memory embedded database already migrated with the files of `migrationsDir`. Applying the
 * migrations (megabytes of SQL, statement by statement) took 15-20 s of every test file's start on PGlite;
 * here they run once per set of migration files, the data folder is kept as a tarball in the temporary
 * folder, and each test file loads it (a fresh, independent database all the same). The caller still
 * runs migrate(), which then finds nothing pending.
 */
export async function openMigratedPglite(migrationsDir: string): Promise<Database> {
  const tarball = await templateTarball(migrationsDir);
  const pglite = new PGlite({ loadDataDir: new Blob([tarball]), extensions: { pg_trgm } });
  const knex = await openPgliteDatabase(pglite, undefined);
  return { knex, embedded: true, schema: undefined, close: () => knex.destroy() };
}

/** The migrated data folder for these migration files and this PGlite, made when the temporary folder lacks it. */
async function templateTarball(migrationsDir: string): Promise<Buffer> {
  const file = path.join(os.tmpdir(), `patchbay-test-pglite-${templateKey(migrationsDir)}.tar`);
  try {
    return fs.readFileSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const pglite = new PGlite({ extensions: { pg_trgm } });
  let tarball: Buffer;
  try {
    await migrate(await openPgliteDatabase(pglite, undefined), migrationsDir);
    tarball = Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer());
  } finally {
    await pglite.close();
  }
  // Written under a name of this process's, then renamed: workers building it at once never read half a file.
  const partial = `${file}.${process.pid}.partial`;
  fs.writeFileSync(partial, tarball);
  fs.renameSync(partial, file);
  return tarball;
}

/** What the template depends on: the migration files and the PGlite build. */
function templateKey(migrationsDir: string): string {
  const pgliteDir = path.dirname(path.dirname(require.resolve('@electric-sql/pglite')));
  return crypto.createHash('sha256').update(fs.readFileSync(path.join(pgliteDir, 'package.json'))).update(migrationsKey(migrationsDir)).digest('hex').slice(0, 24);
}

/** A digest of every migration file's name and text. */
export function migrationsKey(migrationsDir: string): string {
  const hash = crypto.createHash('sha256');
  for (const name of listMigrationFiles(migrationsDir)) {
    hash.update(`\0${name}\0`);
    hash.update(fs.readFileSync(path.join(migrationsDir, name)));
  }
  return hash.digest('hex');
}
