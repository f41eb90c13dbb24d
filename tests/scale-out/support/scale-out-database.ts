import crypto from 'node:crypto';
import pg from 'pg';

/** The cluster tests/scale-out/run.sh (tools/replication/cluster.sh) brought up, when it did. */
export const PRIMARY_URL = process.env.SCALE_OUT_PRIMARY_URL || undefined;
export const BOUNCER_URL = process.env.SCALE_OUT_BOUNCER_URL || undefined;

/** The same server and credentials as url, another database. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A database of one test file's own on the primary, with a direct client to inspect and lock it. */
export async function scaleOutDatabase(prefix: string): Promise<{ name: string; sql: pg.Client; drop(): Promise<void> }> {
  const name = `${prefix}_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: withDatabase(PRIMARY_URL!, 'postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const sql = new pg.Client({ connectionString: withDatabase(PRIMARY_URL!, name), application_name: 'scale-out-suite' });
  await sql.connect();
  return {
    name,
    sql,
    drop: async () => {
      await sql.end().catch(() => undefined);
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await admin.end();
    },
  };
}
