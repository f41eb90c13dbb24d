/**
 * docs/model-authors.md's worked example, run as the guide tells it: the BGP community definition is read
 * out of the guide itself, so the page and the engine cannot drift apart.
 */
import fs from 'node:fs';
import path from 'node:path';
import { apiWith } from '../support/listen';
import { startTestApp, type TestApp } from '../support/test-app';
import { ROOT, runCli, tempDir } from './cli-support';

const GUIDE = path.join(ROOT, 'docs', 'model-authors.md');

/** The fenced block of the given language right after `<!-- worked-example:<name> -->` in the guide. */
function guideBlock(name: string, lang: string): string {
  const text = fs.readFileSync(GUIDE, 'utf8');
  const marker = `<!-- worked-example:${name} -->`;
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`${GUIDE} has no ${marker}`);
  const m = new RegExp('^\\s*```' + lang + '\\n([\\s\\S]*?)\\n```', 'm').exec(text.slice(at + marker.length));
  if (!m) throw new Error(`${GUIDE}: no \`\`\`${lang} block after ${marker}`);
  return m[1]!;
}

function sqlFiles(dir: string): string[] {
  return fs.readdirSync(dir).filter((f) => f.endsWith('.sql')).sort();
}

/** The number the next migration in dir takes, as makemigrations counts. */
function nextNumber(dir: string): string {
  const files = sqlFiles(dir);
  const last = files.length ? Number(files[files.length - 1]!.slice(0, 4)) : 0;
  return String(last + 1).padStart(4, '0');
}

/** Runs makemigrations (or --check) against the temp copies. */
function makemigrations(dirs: { schemaDir: string; migrationsDir: string }, check = false) {
  return runCli(['makemigrations', ...(check ? ['--check'] : [])], {
    PATCHBAY_SCHEMA_DIR: dirs.schemaDir,
    PATCHBAY_MIGRATIONS_DIR: dirs.migrationsDir,
  });
}

/** Runs makemigrations and returns the one migration file it wrote, by name and text. */
function makeOneMigration(dirs: { schemaDir: string; migrationsDir: string }): { name: string; sql: string; stdout: string } {
  const before = new Set(sqlFiles(dirs.migrationsDir));
  const expected = nextNumber(dirs.migrationsDir);
  const r = makemigrations(dirs);
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
  const written = sqlFiles(dirs.migrationsDir).filter((f) => !before.has(f));
  expect(written).toHaveLength(1);
  const name = written[0]!;
  expect(name.slice(0, 5)).toBe(`${expected}_`);
  expect(r.stdout).toContain(`wrote ${path.join(dirs.migrationsDir, name)}`);
  return { name, sql: fs.readFileSync(path.join(dirs.migrationsDir, name), 'utf8'), stdout: r.stdout };
}

const ROUTE_TARGET_FILE = 'ipam/bgp-community.json';
const definitionText = guideBlock(ROUTE_TARGET_FILE, 'json');
const tmp = tempDir('worked-example');
const dirs = { schemaDir: path.join(tmp.dir, 'schema'), migrationsDir: path.join(tmp.dir, 'migrations') };
const routeTargetPath = path.join(dirs.schemaDir, ROUTE_TARGET_FILE);

beforeAll(() => {
  fs.cpSync(path.join(ROOT, 'schema'), dirs.schemaDir, { recursive: true });
  fs.cpSync(path.join(ROOT, 'migrations'), dirs.migrationsDir, { recursive: true });
  // The copy starts in step with its own migrations even while schema/ has changes not yet migrated
  // (the repository-level check below reports those), so the guide's migration is only the guide's.
  const settle = makemigrations(dirs);
  if (settle.status !== 0) throw new Error(`makemigrations on the copy of schema/ failed:\n${settle.stdout}${settle.stderr}`);
  fs.writeFileSync(routeTargetPath, `${definitionText}\n`);
});
afterAll(() => tmp.remove());

test('makemigrations --check passes on the repository as committed', () => {
  const r = runCli(['makemigrations', '--check']);
  expect(r.stderr).toBe('');
  expect(r.stdout).toContain('No changes detected');
  expect(r.status).toBe(0);
});

test('the guide explains every word of the definition language', () => {
  type Node = { properties?: Record<string, Node>; enum?: unknown[]; oneOf?: Node[]; definitions?: Record<string, Node> };
  const meta = JSON.parse(fs.readFileSync(path.join(ROOT, 'schema', 'model.schema.json'), 'utf8')) as Node;
  const defs = meta.definitions ?? {};
  const words = new Set<string>(Object.keys(meta.properties ?? {}).filter((w) => w !== '$schema'));
  const add = (node: Node | undefined) => Object.keys(node?.properties ?? {}).forEach((w) => words.add(w));
  add(defs.Field);
  add(defs.Filter);
  add(defs.Check);
  for (const alt of [...(defs.UniqueTogether?.oneOf ?? []), ...(defs.Display?.oneOf ?? [])]) add(alt);
  for (const kind of defs.Field?.properties?.type?.enum ?? []) words.add(String(kind));
  for (const role of meta.properties?.role?.enum ?? []) words.add(String(role));
  const guide = fs.readFileSync(GUIDE, 'utf8');
  // A new word in model.schema.json needs a line in docs/model-authors.md (see "The rule" there).
  expect([...words].filter((w) => !guide.includes(`\`${w}\``)).sort()).toEqual([]);
});

describe('step 1: the JSON file the guide shows', () => {
  test('is the BGP community the guide describes', () => {
    const def = JSON.parse(definitionText) as Record<string, unknown>;
    expect(def).toMatchObject({ app: 'ipam', model: 'bgpcommunity', path: 'bgp-communities', brief: ['id', 'url', 'display', 'name'], ordering: ['name'] });
    expect(def.fields).toMatchObject({
      name: { type: 'string', max_length: 21, required: true, unique: true },
      tenant: { type: 'fk', to: 'tenancy.tenant', null: true, on_delete: 'protect' },
      description: { type: 'string' },
      comments: { type: 'text' },
      tags: { type: 'tags' },
      custom_fields: { type: 'custom_fields' },
    });
  });
});

describe('step 2: makemigrations', () => {
  let migration: { name: string; sql: string; stdout: string };

  test('--check fails before the migration is written, naming the difference', () => {
    const before = sqlFiles(dirs.migrationsDir);
    const r = makemigrations(dirs, true);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('a migration is missing');
    expect(r.stderr).toContain('create table ipam_bgpcommunity');
    expect(r.stderr).toContain('add unique ipam_bgpcommunity_name_key on ipam_bgpcommunity (name)');
    expect(r.stderr).toContain('run: npm run makemigrations');
    expect(sqlFiles(dirs.migrationsDir)).toEqual(before);
  });

  test('writes the next numbered migration, which creates the table', () => {
    const expected = nextNumber(dirs.migrationsDir);
    migration = makeOneMigration(dirs);
    // 0002 while the repository holds only 0001_initial.sql, as the guide shows.
    expect(migration.name).toBe(`${expected}_create_ipam_bgpcommunity_and_create_ipam_bgpcommunity_tags.sql`);
    expect(migration.sql).toContain('CREATE TABLE "ipam_bgpcommunity" (');
    expect(migration.sql).toContain('"name" varchar(21) NOT NULL');
    expect(migration.stdout).toContain('create table ipam_bgpcommunity');
  });

  test('every statement the guide shows is in the migration', () => {
    const shown = guideBlock('migration-sql', 'sql')
      .split(/;\s*\n/)
      .map((s) => s.replace(/;\s*$/, '').trim())
      .filter(Boolean);
    expect(shown.length).toBeGreaterThanOrEqual(8);
    for (const statement of shown) expect(migration.sql).toContain(`${statement};`);
  });

  test('--check passes once the migration is written', () => {
    const r = makemigrations(dirs, true);
    expect(r.stdout).toContain('No changes detected');
    expect(r.status).toBe(0);
  });
});

describe('step 3: the endpoint, on a database migrated from the temp folders', () => {
  let t: TestApp;
  const RT = '/api/ipam/bgp-communities/';
  beforeAll(async () => {
    t = await startTestApp(dirs);
  });
  afterAll(async () => {
    await t?.close();
  });

  test('the ipam root lists bgp-communities', async () => {
    const r = await t.api.get('/api/ipam/').set(t.auth);
    expect(r.status).toBe(200);
    expect(r.body['bgp-communities']).toMatch(/\/api\/ipam\/bgp-communities\/$/);
  });

  let id: number;
  let tenantId: number;
  test('create with the tenant given by slug: 201, Location, the full form', async () => {
    const tenant = await t.api.post('/api/tenancy/tenants/').set(t.auth).send({ name: 'Acme', slug: 'acme' });
    expect(tenant.status).toBe(201);
    tenantId = tenant.body.id as number;
    const r = await t.api.post(RT).set(t.auth).send({ name: '65000:100', tenant: { slug: 'acme' }, description: 'customer VPN' });
    expect(r.status).toBe(201);
    id = r.body.id as number;
    expect(r.headers.location).toBe(r.body.url);
    expect(Object.keys(r.body.tenant)).toEqual(['id', 'url', 'display', 'name', 'slug']);
    expect(r.body.url).toMatch(new RegExp(`/api/ipam/bgp-communities/${id}/$`));
    // supertest serves each request on a new port, so URLs are compared by path.
    expect(Object.keys(r.body)).toEqual(['id', 'url', 'display', 'name', 'tenant', 'description', 'comments', 'tags', 'custom_fields', 'created', 'last_updated']);
    expect(r.body).toMatchObject({
      display: '65000:100',
      name: '65000:100',
      tenant: { id: tenant.body.id, url: expect.stringMatching(new RegExp(`/api/tenancy/tenants/${tenant.body.id}/$`)), display: 'Acme', name: 'Acme', slug: 'acme' },
      description: 'customer VPN',
      comments: '',
      tags: [],
      custom_fields: {},
    });
    expect(r.body.created).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(r.body.last_updated).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
  });

  test('list is ordered by name', async () => {
    const second = await t.api.post(RT).set(t.auth).send({ name: '65000:050' });
    expect(second.status).toBe(201);
    const r = await t.api.get(RT).set(t.auth);
    expect(r.status).toBe(200);
    expect(r.body.count).toBe(2);
    expect(r.body.results.map((x: { name: string }) => x.name)).toEqual(['65000:050', '65000:100']);
    const del = await t.api.delete(`${RT}${second.body.id}/`).set(t.auth);
    expect(del.status).toBe(204);
  });

  test('filters derived from the fields and declared in the file', async () => {
    const byTenant = await t.api.get(`${RT}?tenant=acme`).set(t.auth);
    expect(byTenant.status).toBe(200);
    expect(byTenant.body.results.map((x: { id: number }) => x.id)).toEqual([id]);
    const searched = await t.api.get(`${RT}?q=customer`).set(t.auth);
    expect(searched.body.results.map((x: { id: number }) => x.id)).toEqual([id]);
    // Declared filters: the tenant's group, by id and by slug.
    const group = await t.api.post('/api/tenancy/tenant-groups/').set(t.auth).send({ name: 'Customers', slug: 'customers' });
    expect(group.status).toBe(201);
    const other = await t.api.post('/api/tenancy/tenant-groups/').set(t.auth).send({ name: 'Internal', slug: 'internal' });
    expect((await t.api.patch(`/api/tenancy/tenants/${tenantId}/`).set(t.auth).send({ group: { slug: 'customers' } })).status).toBe(200);
    for (const query of [`tenant_group_id=${group.body.id}`, 'tenant_group=customers']) {
      const r = await t.api.get(`${RT}?${query}`).set(t.auth);
      expect({ query, status: r.status, ids: r.body.results?.map((x: { id: number }) => x.id) }).toEqual({ query, status: 200, ids: [id] });
    }
    const none = await t.api.get(`${RT}?tenant_group=internal`).set(t.auth);
    expect(none.body.count).toBe(0);
    expect(other.status).toBe(201);
  });

  test('detail', async () => {
    const r = await t.api.get(`${RT}${id}/`).set(t.auth);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id, name: '65000:100', tenant: { slug: 'acme' } });
  });

  test('brief=1 gives exactly the brief fields, on list and detail', async () => {
    const list = await t.api.get(`${RT}?brief=1`).set(t.auth);
    expect(list.status).toBe(200);
    expect(list.body.results).toEqual([{ id, url: expect.stringMatching(new RegExp(`/api/ipam/bgp-communities/${id}/$`)), display: '65000:100', name: '65000:100' }]);
    const detail = await t.api.get(`${RT}${id}/?brief=1`).set(t.auth);
    expect(Object.keys(detail.body)).toEqual(['id', 'url', 'display', 'name']);
  });

  test('PATCH changes only what it names', async () => {
    const r = await t.api.patch(`${RT}${id}/`).set(t.auth).send({ description: 'Acme L3VPN' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id, name: '65000:100', description: 'Acme L3VPN', tenant: { slug: 'acme' } });
  });

  test('a second BGP community with the same name is a 400 naming the field', async () => {
    const r = await t.api.post(RT).set(t.auth).send({ name: '65000:100' });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ name: ['BGP community with this name already exists.'] });
  });

  test('a name over 21 characters and a missing name are 400s', async () => {
    const long = await t.api.post(RT).set(t.auth).send({ name: '65000:1000000000000000000' });
    expect(long.status).toBe(400);
    expect(long.body).toEqual({ name: ['Ensure this field has no more than 21 characters.'] });
    const missing = await t.api.post(RT).set(t.auth).send({ description: 'x' });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ name: ['This field is required.'] });
  });

  test('a tenant that has BGP communities is protected: 409 naming them', async () => {
    const r = await t.api.delete(`/api/tenancy/tenants/${tenantId}/`).set(t.auth);
    expect(r.status).toBe(409);
    expect(r.body.detail).toBe(`Unable to delete object. 1 dependent objects were found: 65000:100 (${id})`);
  });

  test('DELETE: 204, then 404', async () => {
    const r = await t.api.delete(`${RT}${id}/`).set(t.auth);
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    const gone = await t.api.get(`${RT}${id}/`).set(t.auth);
    expect(gone.status).toBe(404);
    const tenant = await t.api.delete(`/api/tenancy/tenants/${tenantId}/`).set(t.auth);
    expect(tenant.status).toBe(204);
  });
});

describe('changing and removing, as the guide says', () => {
  test('removing a field writes a migration that drops its column, and it applies', async () => {
    const def = JSON.parse(definitionText) as { fields: Record<string, unknown> };
    delete def.fields.comments;
    fs.writeFileSync(routeTargetPath, `${JSON.stringify(def, null, 2)}\n`);

    const m = makeOneMigration(dirs);
    expect(m.name).toMatch(/^\d{4}_remove_ipam_bgpcommunity_comments\.sql$/);
    expect(m.sql).toContain('ALTER TABLE "ipam_bgpcommunity" DROP COLUMN "comments";');
    expect(m.sql).not.toContain('DROP TABLE');
    expect(makemigrations(dirs, true).status).toBe(0);

    const t = await startTestApp(dirs);
    try {
      const r = await t.api.post('/api/ipam/bgp-communities/').set(t.auth).send({ name: '65000:1' });
      expect(r.status).toBe(201);
      expect(r.body).not.toHaveProperty('comments');
      // A key the model no longer has is ignored, as NetBox ignores unknown keys; a strict deployment refuses it.
      const ignored = await t.api.post('/api/ipam/bgp-communities/').set(t.auth).send({ name: '65000:2', comments: 'x' });
      expect([ignored.status, ignored.body.comments]).toEqual([201, undefined]);
      const bad = await apiWith(t, { PATCHBAY_REJECT_UNKNOWN_FIELDS: 'true' }).post('/api/ipam/bgp-communities/').set(t.auth).send({ name: '65000:3', comments: 'x' });
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({ comments: ['Unknown field.'] });
    } finally {
      await t.close();
    }
  });

  test('removing the model writes a migration that drops its tables, and it applies', async () => {
    fs.rmSync(routeTargetPath);
    const m = makeOneMigration(dirs);
    expect(m.sql).toContain('DROP TABLE "ipam_bgpcommunity";');
    expect(m.sql).toContain('DROP TABLE "ipam_bgpcommunity_tags";');
    expect(makemigrations(dirs, true).status).toBe(0);

    const t = await startTestApp(dirs);
    try {
      const root = await t.api.get('/api/ipam/').set(t.auth);
      expect(root.body).not.toHaveProperty('bgp-communities');
      const r = await t.api.get('/api/ipam/bgp-communities/').set(t.auth);
      expect(r.status).toBe(404);
      const tables = await t.knex.raw(`SELECT to_regclass('ipam_bgpcommunity') AS "t"`);
      expect((tables.rows as Array<{ t: string | null }>)[0]!.t).toBeNull();
    } finally {
      await t.close();
    }
  });
});
