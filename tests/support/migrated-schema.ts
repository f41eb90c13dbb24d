import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { connectDatabase } from '../../engine/database/connect';
import { migrate } from '../../engine/migrations/migrator';
import { migrationsKey } from './migrated-pglite';

/**
 * Fills a new test schema on PostgreSQL with what the migrations make. Applying them statement by statement
 * (megabytes of SQL, each a round trip) was most of every test file's start; instead the migrations run
 * once into a schema of their own, pg_dump writes that schema out as SQL (kept in the temporary folder,
 * keyed by the migration files and the database), and each test file runs the dump, renamed to its own
 * schema, as one script. Without pg_dump (or if the script fails) the schema is migrated as before. The
 * caller still runs migrate(), which then finds nothing pending.
 */
export async function fillFromTemplate(url: string, schema: string, migrationsDir: string): Promise<void> {
  if (!(await buildIfMissing(url, migrationsDir))) return;
  const file = templateFile(url, migrationsDir);
  let script: string;
  try {
    script = fs.readFileSync(file, 'utf8');
  } catch {
    return; // removed meanwhile by a file whose script failed: migrate as before
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // Its own session: the dump empties search_path for itself. A few hundred objects per transaction:
    // the whole dump in one would take a lock per object at once, past what a loaded server's lock table holds.
    const entries = script.split(PLACEHOLDER).join(schema).split(ENTRY);
    for (let i = 0; i < entries.length; i += 200) await client.query((i ? ENTRY : '') + entries.slice(i, i + 200).join(ENTRY));
  } catch {
    // A database made afresh since (without the pg_trgm the dump's indexes name): the next file builds anew.
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    fs.rmSync(file, { force: true });
  } finally {
    await client.end();
  }
}

const PLACEHOLDER = '@@PATCHBAY_TEST_SCHEMA@@';
/** How pg_dump begins each object's entry (a comment): the places where the script may be cut. */
const ENTRY = '\n--\n-- Name: ';

function templateFile(url: string, migrationsDir: string): string {
  const key = crypto.createHash('sha256').update(`${migrationsKey(migrationsDir)}\0${url}`).digest('hex').slice(0, 24);
  return path.join(os.tmpdir(), `patchbay-test-schema-${key}.sql`);
}

/** Migrates a schema of its own and dumps it, once per migration files and database. False when it cannot. */
async function buildIfMissing(url: string, migrationsDir: string): Promise<boolean> {
  const file = templateFile(url, migrationsDir);
  if (fs.existsSync(file)) return true;
  const schema = `t_template_${crypto.randomBytes(6).toString('hex')}`;
  const db = await connectDatabase({ url, schema, poolMax: 1 });
  try {
    await migrate(db.knex, migrationsDir, schema);
    let dump: string;
    try {
      dump = execFileSync('pg_dump', ['--no-owner', '--no-privileges', '--inserts', '--schema', schema, '--dbname', url], { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      return false;
    }
    // psql's meta-commands (\restrict, \unrestrict) are not SQL; the schema's name becomes the placeholder.
    const script = dump.split('\n').filter((line) => !line.startsWith('\\')).join('\n').split(schema).join(PLACEHOLDER);
    // Written under a name of this process's, then renamed: workers building it at once never read half a file.
    const partial = `${file}.${process.pid}.partial`;
    fs.writeFileSync(partial, script);
    fs.renameSync(partial, file);
    return true;
  } finally {
    await db.knex.raw(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await db.close();
  }
}
