import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectDatabase, type Database } from '../../engine/database/connect';
import type { Db } from '../../engine/database/db';
import { diffSnapshots } from '../../engine/migrations/diff-snapshots';
import {
  listMigrationFiles,
  makeMigrationName,
  migrationFileText,
  readStoredSnapshot,
  writeMigration,
  MIGRATION_HEADER,
} from '../../engine/migrations/migration-files';
import { migrate, pendingMigrations, splitStatements } from '../../engine/migrations/migrator';
import type { ColumnSpec, StorageSnapshot, TableSpec } from '../../engine/migrations/snapshot-types';

/**
 * A RESTRICT key refusing a delete: PostgreSQL up to 17 says 23503 (foreign_key_violation), 18 and later
 * (PGlite 0.5 is 18) say 23001 (restrict_violation).
 */
const RESTRICT_REFUSED = ['23503', '23001'];

const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const ID: ColumnSpec = { type: 'bigint', nullable: false, identity: true };

function table(columns: Record<string, ColumnSpec>, parts: Partial<TableSpec> = {}): TableSpec {
  return { columns: { id: ID, ...columns }, primaryKey: ['id'], uniques: {}, foreignKeys: {}, indexes: {}, ...parts };
}

/** Regions nest (self key, SET NULL), sites and prefixes point at each other, prefixes go with their site. */
function firstSnapshot(): StorageSnapshot {
  return {
    version: 1,
    tables: {
      dcim_region: table(
        { name: { type: 'varchar(100)', nullable: false }, parent_id: { type: 'bigint', nullable: true } },
        {
          foreignKeys: {
            dcim_region_parent_id_fk: { columns: ['parent_id'], references: { table: 'dcim_region', columns: ['id'] }, onDelete: 'SET NULL' },
          },
        },
      ),
      dcim_site: table(
        {
          name: { type: 'varchar(100)', nullable: false },
          tenant: { type: 'varchar(50)', nullable: true },
          status: { type: 'varchar(50)', nullable: false, default: `'active'` },
          region_id: { type: 'bigint', nullable: true },
          primary_prefix_id: { type: 'bigint', nullable: true },
          custom_field_data: { type: 'jsonb', nullable: false, default: `'{}'::jsonb` },
          legacy: { type: 'text', nullable: true },
        },
        {
          uniques: { dcim_site_name_tenant_uniq: { columns: ['name', 'tenant'], nullsDistinct: false } },
          foreignKeys: {
            dcim_site_region_id_fk: { columns: ['region_id'], references: { table: 'dcim_region', columns: ['id'] }, onDelete: 'RESTRICT' },
            dcim_site_primary_prefix_id_fk: {
              columns: ['primary_prefix_id'],
              references: { table: 'ipam_prefix', columns: ['id'] },
              onDelete: 'SET NULL',
            },
          },
          indexes: { dcim_site_region_id_idx: { columns: ['region_id'] } },
        },
      ),
      ipam_prefix: table(
        {
          prefix: { type: 'cidr', nullable: false },
          site_id: { type: 'bigint', nullable: false },
          excluded: { type: 'cidr[]', nullable: false, default: `'{}'` },
          description: { type: 'text', nullable: true },
        },
        {
          foreignKeys: {
            ipam_prefix_site_id_fk: { columns: ['site_id'], references: { table: 'dcim_site', columns: ['id'] }, onDelete: 'CASCADE' },
          },
          indexes: {
            ipam_prefix_prefix_gist: { columns: ['prefix'], method: 'gist', opclass: 'inet_ops' },
            ipam_prefix_site_id_idx: { columns: ['site_id'] },
          },
        },
      ),
      ipam_ipaddress: table(
        { address: { type: 'inet', nullable: false }, prefix_id: { type: 'bigint', nullable: true } },
        {
          foreignKeys: {
            ipam_ipaddress_prefix_id_fk: { columns: ['prefix_id'], references: { table: 'ipam_prefix', columns: ['id'] }, onDelete: 'RESTRICT' },
          },
        },
      ),
    },
  };
}

/** Adds, drops and alters a bit of everything, on tables that hold rows. */
function secondSnapshot(): StorageSnapshot {
  const s = firstSnapshot();
  delete s.tables.ipam_ipaddress;
  const site = s.tables.dcim_site!;
  delete site.columns.legacy;
  site.columns.facility = { type: 'varchar(50)', nullable: false, default: `''` };
  site.columns.tenant = { type: 'varchar(100)', nullable: true };
  site.columns.status = { type: 'varchar(50)', nullable: false, default: `'planned'` };
  const prefix = s.tables.ipam_prefix!;
  prefix.columns.description = { type: 'text', nullable: false, default: `''` };
  prefix.foreignKeys.ipam_prefix_site_id_fk!.onDelete = 'RESTRICT';
  s.tables.tenancy_tenant = table(
    { name: { type: 'varchar(100)', nullable: false } },
    { uniques: { tenancy_tenant_name_uniq: { columns: ['name'], nullsDistinct: true } } },
  );
  return s;
}

/** Writes the migration that takes migrations/ to `next`, as makemigrations will. */
function makeMigration(dir: string, next: StorageSnapshot): string {
  const prev = readStoredSnapshot(dir);
  const changes = diffSnapshots(prev, next);
  const name = makeMigrationName(changes, listMigrationFiles(dir).length === 0);
  return writeMigration(dir, name, migrationFileText(changes), next);
}

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'patchbay-migrations-'));
}

async function sqlState(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
  return 'no error';
}

async function count(db: Db, table: string): Promise<number> {
  return Number((await db.raw<{ n: number }>(`SELECT count(*)::int AS "n" FROM "${table}"`)).rows[0]!.n);
}

/** One row of an INSERT ... RETURNING. */
async function insert(db: Db, sql: string, bindings: unknown[] = []): Promise<Record<string, unknown>> {
  return (await db.raw(sql, bindings)).rows[0]!;
}

async function hasTable(db: Db, table: string): Promise<boolean> {
  return (await db.raw<{ found: boolean }>(`SELECT to_regclass(?) IS NOT NULL AS "found"`, [table])).rows[0]!.found;
}

async function column(db: Db, sql: string, bindings: unknown[] = []): Promise<unknown[]> {
  return (await db.raw(sql, bindings)).rows.map((r) => Object.values(r)[0]);
}

const schemaName = `migrator_${process.pid}_${Date.now()}`;

interface Backend {
  name: string;
  open(): Promise<Database>;
}

const backends: Backend[] = [
  { name: 'PostgreSQL', open: () => connectDatabase({ url: PG_URL, schema: schemaName, poolMax: 4 }) },
  { name: 'PGlite', open: () => connectDatabase({ schema: schemaName }) },
];

describe.each(backends)('migrate on $name', (backend) => {
  let database: Database;
  let db: Db;
  let dir: string;

  beforeAll(async () => {
    database = await backend.open();
    db = database.knex;
    dir = tempDir();
  });

  afterAll(async () => {
    await db.raw(`DROP SCHEMA "${schemaName}" CASCADE`);
    await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the first migration creates a schema whose constraints hold', async () => {
    const file = makeMigration(dir, firstSnapshot());
    expect(path.basename(file)).toBe('0001_initial.sql');
    expect(await pendingMigrations(db, dir, schemaName)).toEqual(['0001_initial.sql']);
    expect(await migrate(db, dir, schemaName)).toEqual(['0001_initial.sql']);
    expect(await pendingMigrations(db, dir, schemaName)).toEqual([]);

    const bookkeeping = await column(
      db,
      `SELECT "table_name" FROM information_schema.tables WHERE "table_schema" = ? AND "table_name" IN ('knex_migrations', 'knex_migrations_lock') ORDER BY 1`,
      [schemaName],
    );
    expect(bookkeeping).toEqual(['knex_migrations', 'knex_migrations_lock']);

    const world = await insert(db, `INSERT INTO "dcim_region" ("name") VALUES ('World') RETURNING "id"`);
    const europe = await insert(db, `INSERT INTO "dcim_region" ("name", "parent_id") VALUES ('Europe', ?) RETURNING "id"`, [world.id]);
    const site = await insert(db, `INSERT INTO "dcim_site" ("name", "region_id") VALUES ('ams1', ?) RETURNING "id", "status"`, [europe.id]);
    expect(site.status).toBe('active');

    // NULLS NOT DISTINCT: two sites named ams1 without a tenant collide.
    expect(await sqlState(db.raw(`INSERT INTO "dcim_site" ("name") VALUES ('ams1')`))).toBe('23505');
    await db.raw(`INSERT INTO "dcim_site" ("name", "tenant") VALUES ('ams1', 'acme')`);

    const prefix = await insert(db, `INSERT INTO "ipam_prefix" ("prefix", "site_id", "excluded") VALUES ('10.0.0.0/8', ?, '{10.9.0.0/16}'::cidr[]) RETURNING "id"`, [site.id]);
    await db.raw(`INSERT INTO "ipam_prefix" ("prefix", "site_id") VALUES ('10.1.0.0/16', ?)`, [site.id]);
    await db.raw(`UPDATE "dcim_site" SET "primary_prefix_id" = ? WHERE "id" = ?`, [prefix.id, site.id]);
    const containing = await column(db, `SELECT "prefix" FROM "ipam_prefix" WHERE prefix >> '10.1.2.0/24'::cidr ORDER BY 1`);
    expect(containing).toEqual(['10.0.0.0/8', '10.1.0.0/16']);
    const [gist] = await column(db, `SELECT "indexdef" FROM "pg_indexes" WHERE "schemaname" = ? AND "indexname" = 'ipam_prefix_prefix_gist'`, [schemaName]);
    expect(gist).toContain('USING gist (prefix inet_ops)');

    // RESTRICT: a region with sites stays; SET NULL: its children let go of a deleted parent.
    expect(RESTRICT_REFUSED).toContain(await sqlState(db.raw(`DELETE FROM "dcim_region" WHERE "id" = ?`, [europe.id])));
    await db.raw(`UPDATE "dcim_site" SET "region_id" = NULL WHERE "region_id" = ?`, [europe.id]);
    await db.raw(`DELETE FROM "dcim_region" WHERE "id" = ?`, [world.id]);
    expect(await column(db, `SELECT "parent_id" FROM "dcim_region" WHERE "id" = ?`, [europe.id])).toEqual([null]);

    // CASCADE: prefixes go with their site (and the site's own key to its prefix does not get in the way).
    await db.raw(`DELETE FROM "dcim_site" WHERE "id" = ?`, [site.id]);
    expect(await count(db, 'ipam_prefix')).toBe(0);
  });

  test('a second migration alters tables that hold rows, and a rerun applies nothing', async () => {
    const site = await insert(db, `INSERT INTO "dcim_site" ("name", "tenant") VALUES ('fra1', ?) RETURNING "id"`, ['x'.repeat(50)]);
    await db.raw(`INSERT INTO "ipam_prefix" ("prefix", "site_id") VALUES ('192.0.2.0/24', ?)`, [site.id]);
    const ip = await insert(db, `INSERT INTO "ipam_ipaddress" ("address") VALUES ('192.0.2.1/24') RETURNING "id"`);
    expect(ip.id).toBeDefined();

    const file = makeMigration(dir, secondSnapshot());
    expect(path.basename(file)).toMatch(/^0002_[a-z0-9_]+\.sql$/);
    expect(await pendingMigrations(db, dir, schemaName)).toEqual([path.basename(file)]);
    expect(await migrate(db, dir, schemaName)).toEqual([path.basename(file)]);
    expect(await migrate(db, dir, schemaName)).toEqual([]);

    const row = await insert(db, `SELECT * FROM "dcim_site" WHERE "id" = ?`, [site.id]);
    expect(row.facility).toBe('');
    expect(row).not.toHaveProperty('legacy');
    await db.raw(`UPDATE "dcim_site" SET "tenant" = ? WHERE "id" = ?`, ['y'.repeat(100), site.id]);
    expect((await insert(db, `INSERT INTO "dcim_site" ("name") VALUES ('new') RETURNING "status"`)).status).toBe('planned');
    // The NULL description was filled from the new default before NOT NULL was set.
    expect(await column(db, `SELECT "description" FROM "ipam_prefix" LIMIT 1`)).toEqual(['']);
    expect(await hasTable(db, 'ipam_ipaddress')).toBe(false);
    expect(await hasTable(db, 'tenancy_tenant')).toBe(true);
    // The prefix key now restricts instead of cascading.
    expect(RESTRICT_REFUSED).toContain(await sqlState(db.raw(`DELETE FROM "dcim_site" WHERE "id" = ?`, [site.id])));

    const applied = await db.raw<{ name: string; batch: number }>(`SELECT "name", "batch" FROM "knex_migrations" ORDER BY "id"`);
    expect(applied.rows).toEqual([{ name: '0001_initial.sql', batch: 1 }, { name: path.basename(file), batch: 2 }]);
  });

  test('a migration that fails leaves nothing behind and can be fixed and rerun', async () => {
    const broken = path.join(dir, '0003_broken.sql');
    fs.writeFileSync(broken, `${MIGRATION_HEADER}\n\nCREATE TABLE "half_done" ("id" bigint);\n\nSELECT 1/0;\n`);
    expect(await sqlState(migrate(db, dir, schemaName))).toBe('22012');
    expect(await hasTable(db, 'half_done')).toBe(false);
    expect(await pendingMigrations(db, dir, schemaName)).toEqual(['0003_broken.sql']);
    // A ? and a backslash before one are plain SQL text now (knex took each ? for a hole).
    fs.writeFileSync(broken, `CREATE TABLE "half_done" ("id" bigint, "q" text DEFAULT '?;' /* ; */, "r" text DEFAULT E'\\\\?');\n`);
    expect(await migrate(db, dir, schemaName)).toEqual(['0003_broken.sql']);
    expect(await hasTable(db, 'half_done')).toBe(true);
    expect(await insert(db, `INSERT INTO "half_done" ("id") VALUES (1) RETURNING "q", "r"`)).toEqual({ q: '?;', r: '\\?' });
    expect(await column(db, `SELECT "is_locked" FROM "knex_migrations_lock"`)).toEqual([0]);
  });

  test('a database migrated by knex\'s migrator carries on: its rows are read, new ones added alike', async () => {
    const other = `${schemaName}_knex`;
    const knexDir = tempDir();
    await db.raw(`CREATE SCHEMA "${other}"`);
    try {
      // The tables and rows as knex 3 left them (its DDL for increments/string/integer/timestamp on PostgreSQL).
      await db.raw(`CREATE TABLE "${other}"."knex_migrations" ("id" serial primary key, "name" varchar(255), "batch" integer, "migration_time" timestamptz)`);
      await db.raw(`CREATE TABLE "${other}"."knex_migrations_lock" ("index" serial primary key, "is_locked" integer)`);
      await db.raw(`INSERT INTO "${other}"."knex_migrations_lock" ("is_locked") VALUES (0)`);
      await db.raw(`INSERT INTO "${other}"."knex_migrations" ("name", "batch", "migration_time") VALUES ('0001_initial.sql', 1, now() - interval '1 day')`);
      fs.writeFileSync(path.join(knexDir, '0001_initial.sql'), `CREATE TABLE "${other}"."first" ("id" bigint);\n`);
      fs.writeFileSync(path.join(knexDir, '0002_second.sql'), `CREATE TABLE "${other}"."second" ("id" bigint);\n`);

      expect(await pendingMigrations(db, knexDir, other)).toEqual(['0002_second.sql']);
      expect(await migrate(db, knexDir, other)).toEqual(['0002_second.sql']);
      const rows = await db.raw<{ name: string; batch: number; recent: boolean }>(
        `SELECT "name", "batch", "migration_time" > now() - interval '1 hour' AS "recent" FROM "${other}"."knex_migrations" ORDER BY "id"`,
      );
      expect(rows.rows).toEqual([{ name: '0001_initial.sql', batch: 1, recent: false }, { name: '0002_second.sql', batch: 2, recent: true }]);
      expect([await hasTable(db, `"${other}"."first"`), await hasTable(db, `"${other}"."second"`)]).toEqual([false, true]);
      expect(await column(db, `SELECT "is_locked" FROM "${other}"."knex_migrations_lock"`)).toEqual([0]);
    } finally {
      await db.raw(`DROP SCHEMA "${other}" CASCADE`);
      fs.rmSync(knexDir, { recursive: true, force: true });
    }
  });

  test('an applied migration whose file is gone is refused, not guessed at', async () => {
    const gone = path.join(dir, '0003_broken.sql');
    const text = fs.readFileSync(gone, 'utf8');
    fs.rmSync(gone);
    try {
      await expect(migrate(db, dir, schemaName)).rejects.toThrow(/the following files are missing: 0003_broken\.sql$/);
    } finally {
      fs.writeFileSync(gone, text);
    }
  });
});

describe('two instances migrating one PostgreSQL database at once', () => {
  const schema = `${schemaName}_race`;
  const open = () => connectDatabase({ url: PG_URL, schema, poolMax: 3 });
  let a: Database;
  let b: Database;
  let dir: string;

  beforeAll(async () => {
    a = await open();
    b = await open();
    dir = tempDir();
    makeMigration(dir, firstSnapshot());
    makeMigration(dir, secondSnapshot());
  });

  afterAll(async () => {
    await a.knex.raw(`DROP SCHEMA "${schema}" CASCADE`);
    await Promise.all([a.close(), b.close()]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('both succeed and each migration runs once', async () => {
    const names = listMigrationFiles(dir);
    expect(names).toHaveLength(2);
    const results = await Promise.all([migrate(a.knex, dir, schema), migrate(b.knex, dir, schema)]);
    expect(results.flat().sort()).toEqual(names);
    expect(await column(a.knex, `SELECT "name" FROM "knex_migrations" ORDER BY "id"`)).toEqual(names);
    expect(await column(a.knex, `SELECT "is_locked" FROM "knex_migrations_lock"`)).toEqual([0]);
  });
});

describe('migrations directory', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('an empty or missing directory has no migrations and the empty snapshot', () => {
    expect(listMigrationFiles(path.join(dir, 'nope'))).toEqual([]);
    expect(readStoredSnapshot(dir)).toEqual({ version: 1, tables: {} });
  });

  test('files are numbered, headed, and the snapshot is kept beside them', () => {
    const first = makeMigration(dir, firstSnapshot());
    const text = fs.readFileSync(first, 'utf8');
    expect(text.startsWith(`${MIGRATION_HEADER}\n-- create table dcim_region\n`)).toBe(true);
    expect(text).toContain('-- add index ipam_prefix_prefix_gist on ipam_prefix using gist (prefix inet_ops)\n');
    const snapshotText = fs.readFileSync(path.join(dir, 'snapshot.json'), 'utf8');
    expect(snapshotText).toBe(`${JSON.stringify(firstSnapshot(), null, 2)}\n`);
    expect(readStoredSnapshot(dir)).toEqual(firstSnapshot());
    writeMigration(dir, 'Add Things!', 'SELECT 1;', secondSnapshot());
    expect(listMigrationFiles(dir)).toEqual(['0001_initial.sql', '0002_add_things.sql']);
    expect(fs.readFileSync(path.join(dir, '0002_add_things.sql'), 'utf8')).toBe(`${MIGRATION_HEADER}\n\nSELECT 1;\n`);
    expect(readStoredSnapshot(dir)).toEqual(secondSnapshot());
  });

  test('two migrations with one number are refused', () => {
    fs.writeFileSync(path.join(dir, '0001_initial.sql'), '');
    fs.writeFileSync(path.join(dir, '0001_other.sql'), '');
    expect(() => listMigrationFiles(dir)).toThrow(/same number/);
  });

  test('a stray .sql file is refused rather than skipped', () => {
    fs.writeFileSync(path.join(dir, 'fix.sql'), '');
    expect(() => listMigrationFiles(dir)).toThrow(/NNNN_name\.sql/);
  });
});

describe('splitStatements', () => {
  test('splits on semicolons outside quotes, comments and dollar quotes', () => {
    const sql = [
      '-- header; not a statement',
      '/* block; /* nested; */ still comment; */',
      `CREATE TABLE "a;b" ("x" text DEFAULT 'it''s; fine');`,
      '',
      `SELECT E'\\'; still string', $$ body; $$, $fn$ $$; $fn$;`,
      'SELECT 1 -- trailing; comment',
      ';',
      '-- only a comment at the end;',
    ].join('\n');
    expect(splitStatements(sql)).toEqual([
      `CREATE TABLE "a;b" ("x" text DEFAULT 'it''s; fine')`,
      `SELECT E'\\'; still string', $$ body; $$, $fn$ $$; $fn$`,
      'SELECT 1 -- trailing; comment',
    ]);
  });

  test('a file with no statement gives none', () => {
    expect(splitStatements(`${MIGRATION_HEADER}\n\n`)).toEqual([]);
  });
});
