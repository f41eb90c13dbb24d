import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexLib, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
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

async function count(knex: Knex, table: string): Promise<number> {
  const rows = (await knex(table).count<{ n: string | number }[]>({ n: '*' })) as { n: string | number }[];
  return Number(rows[0]!.n);
}

const schemaName = `migrator_${process.pid}_${Date.now()}`;

interface Backend {
  name: string;
  open(): Promise<Knex>;
}

const backends: Backend[] = [
  {
    name: 'PostgreSQL',
    open: async () => knexLib({ client: 'pg', connection: PG_URL, searchPath: [schemaName], pool: { min: 0, max: 4 } }),
  },
  {
    name: 'PGlite',
    open: async () =>
      knexLib({
        client: ClientPgLite as unknown as typeof knexLib.Client,
        dialect: 'postgres',
        connection: {},
        searchPath: [schemaName],
      }),
  },
];

describe.each(backends)('migrate on $name', (backend) => {
  let knex: Knex;
  let dir: string;

  beforeAll(async () => {
    knex = await backend.open();
    await knex.raw(`CREATE SCHEMA "${schemaName}"`);
    dir = tempDir();
  });

  afterAll(async () => {
    await knex.raw(`DROP SCHEMA "${schemaName}" CASCADE`);
    await knex.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the first migration creates a schema whose constraints hold', async () => {
    const file = makeMigration(dir, firstSnapshot());
    expect(path.basename(file)).toBe('0001_initial.sql');
    expect(await pendingMigrations(knex, dir, schemaName)).toEqual(['0001_initial.sql']);
    expect(await migrate(knex, dir, schemaName)).toEqual(['0001_initial.sql']);
    expect(await pendingMigrations(knex, dir, schemaName)).toEqual([]);

    const bookkeeping = await knex('information_schema.tables')
      .where({ table_schema: schemaName })
      .whereIn('table_name', ['knex_migrations', 'knex_migrations_lock'])
      .pluck('table_name');
    expect(bookkeeping.sort()).toEqual(['knex_migrations', 'knex_migrations_lock']);

    const [world] = await knex('dcim_region').insert({ name: 'World' }).returning('id');
    const [europe] = await knex('dcim_region').insert({ name: 'Europe', parent_id: world.id }).returning('id');
    const [site] = await knex('dcim_site').insert({ name: 'ams1', region_id: europe.id }).returning(['id', 'status']);
    expect(site.status).toBe('active');

    // NULLS NOT DISTINCT: two sites named ams1 without a tenant collide.
    expect(await sqlState(knex('dcim_site').insert({ name: 'ams1' }))).toBe('23505');
    await knex('dcim_site').insert({ name: 'ams1', tenant: 'acme' });

    const [prefix] = await knex('ipam_prefix')
      .insert({ prefix: '10.0.0.0/8', site_id: site.id, excluded: knex.raw(`'{10.9.0.0/16}'::cidr[]`) })
      .returning('id');
    await knex('ipam_prefix').insert({ prefix: '10.1.0.0/16', site_id: site.id });
    await knex('dcim_site').where({ id: site.id }).update({ primary_prefix_id: prefix.id });
    const containing = await knex('ipam_prefix').whereRaw(`prefix >> '10.1.2.0/24'::cidr`).pluck('prefix');
    expect(containing.sort()).toEqual(['10.0.0.0/8', '10.1.0.0/16']);
    const gist = await knex('pg_indexes').where({ schemaname: schemaName, indexname: 'ipam_prefix_prefix_gist' }).first('indexdef');
    expect(gist.indexdef).toContain('USING gist (prefix inet_ops)');

    // RESTRICT: a region with sites stays; SET NULL: its children let go of a deleted parent.
    expect(RESTRICT_REFUSED).toContain(await sqlState(knex('dcim_region').where({ id: europe.id }).del()));
    await knex('dcim_site').where({ region_id: europe.id }).update({ region_id: null });
    await knex('dcim_region').where({ id: world.id }).del();
    expect((await knex('dcim_region').where({ id: europe.id }).first('parent_id')).parent_id).toBeNull();

    // CASCADE: prefixes go with their site (and the site's own key to its prefix does not get in the way).
    await knex('dcim_site').where({ id: site.id }).del();
    expect(await count(knex, 'ipam_prefix')).toBe(0);
  });

  test('a second migration alters tables that hold rows, and a rerun applies nothing', async () => {
    const [site] = await knex('dcim_site').insert({ name: 'fra1', tenant: 'x'.repeat(50) }).returning('id');
    await knex('ipam_prefix').insert({ prefix: '192.0.2.0/24', site_id: site.id });
    const [ip] = await knex('ipam_ipaddress').insert({ address: '192.0.2.1/24' }).returning('id');
    expect(ip.id).toBeDefined();

    const file = makeMigration(dir, secondSnapshot());
    expect(path.basename(file)).toMatch(/^0002_[a-z0-9_]+\.sql$/);
    expect(await pendingMigrations(knex, dir, schemaName)).toEqual([path.basename(file)]);
    expect(await migrate(knex, dir, schemaName)).toEqual([path.basename(file)]);
    expect(await migrate(knex, dir, schemaName)).toEqual([]);

    const row = await knex('dcim_site').where({ id: site.id }).first();
    expect(row.facility).toBe('');
    expect(row).not.toHaveProperty('legacy');
    await knex('dcim_site').where({ id: site.id }).update({ tenant: 'y'.repeat(100) });
    expect((await knex('dcim_site').insert({ name: 'new' }).returning('status'))[0].status).toBe('planned');
    // The NULL description was filled from the new default before NOT NULL was set.
    expect((await knex('ipam_prefix').first('description')).description).toBe('');
    expect(await knex.schema.hasTable('ipam_ipaddress')).toBe(false);
    expect(await knex.schema.hasTable('tenancy_tenant')).toBe(true);
    // The prefix key now restricts instead of cascading.
    expect(RESTRICT_REFUSED).toContain(await sqlState(knex('dcim_site').where({ id: site.id }).del()));

    const applied = await knex('knex_migrations').orderBy('id').pluck('name');
    expect(applied).toEqual(['0001_initial.sql', path.basename(file)]);
  });

  test('a migration that fails leaves nothing behind and can be fixed and rerun', async () => {
    // knex logs the failure it is about to rethrow; the test checks the error itself.
    const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    const broken = path.join(dir, '0003_broken.sql');
    fs.writeFileSync(broken, `${MIGRATION_HEADER}\n\nCREATE TABLE "half_done" ("id" bigint);\n\nSELECT 1/0;\n`);
    expect(await sqlState(migrate(knex, dir, schemaName))).toBe('22012');
    log.mockRestore();
    expect(await knex.schema.hasTable('half_done')).toBe(false);
    expect(await pendingMigrations(knex, dir, schemaName)).toEqual(['0003_broken.sql']);
    fs.writeFileSync(broken, `CREATE TABLE "half_done" ("id" bigint, "q" text DEFAULT '?;' /* ; */);\n`);
    expect(await migrate(knex, dir, schemaName)).toEqual(['0003_broken.sql']);
    expect(await knex.schema.hasTable('half_done')).toBe(true);
  });
});

describe('two instances migrating one PostgreSQL database at once', () => {
  const schema = `${schemaName}_race`;
  const open = (): Knex => knexLib({ client: 'pg', connection: PG_URL, searchPath: [schema], pool: { min: 0, max: 3 } });
  let a: Knex;
  let b: Knex;
  let dir: string;

  beforeAll(async () => {
    a = open();
    b = open();
    await a.raw(`CREATE SCHEMA "${schema}"`);
    dir = tempDir();
    makeMigration(dir, firstSnapshot());
    makeMigration(dir, secondSnapshot());
  });

  afterAll(async () => {
    await a.raw(`DROP SCHEMA "${schema}" CASCADE`);
    await Promise.all([a.destroy(), b.destroy()]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('both succeed and each migration runs once', async () => {
    const names = listMigrationFiles(dir);
    expect(names).toHaveLength(2);
    const results = await Promise.all([migrate(a, dir, schema), migrate(b, dir, schema)]);
    expect(results.flat().sort()).toEqual(names);
    expect(await a('knex_migrations').orderBy('id').pluck('name')).toEqual(names);
    expect(await a('knex_migrations_lock').pluck('is_locked')).toEqual([0]);
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
