/**
 * Finding 1 of the hardening review: a generic relation reached internal types and leaked token keys
 * (a user allowed only to add contact assignments posted content_type "users.token" with the
 * superuser's token id and got its key back nested in `object`). Rules held here:
 * - a generic relation accepts only the types its definition lists, and no definition may list a private
 *   type (users, groups, permissions, tokens, sessions) — checked when the registry is built;
 * - a stored reference to a type outside the list is never rendered;
 * - a secret is rendered only in its own model's representation, never nested in another's;
 * - fields that name types (names_type) accept only the types their definition allows.
 */
import path from 'node:path';
import { startTestApp, type TestApp } from '../support/test-app';
import { apiWith } from '../support/listen';
import { loadDefinitions, type LoadedDefinition } from '../../engine/definitions/load-definitions';
import { resolveRegistry } from '../../engine/definitions/resolve-registry';
import { JsonCompiler, type Form } from '../../engine/reads/object-json';
import { runRows } from '../../engine/database/run';
import { sql } from '../../engine/sql/fragment';
import { grant, made, newUser, stringsIn } from './support';

const SCHEMA = path.resolve(__dirname, '..', '..', 'schema');
const ASSIGNMENTS = '/api/tenancy/contact-assignments/';
const PRIVATE = ['users.token', 'users.user', 'users.session', 'users.objectpermission', 'users.group', 'users.loginfailure'];

let t: TestApp;
let contact: number;
let role: number;
let site: number;
let adminTokenId: number;

beforeAll(async () => {
  t = await startTestApp();
  contact = await made(t, '/api/tenancy/contacts/', { name: 'Alice' });
  role = await made(t, '/api/tenancy/contact-roles/', { name: 'Owner', slug: 'owner' });
  site = await made(t, '/api/dcim/sites/', { name: 'Site', slug: 'site' });
  adminTokenId = (await t.knex.raw(`SELECT "id" FROM "users_token" WHERE "key" = ?`, [t.token])).rows[0].id as number;
});
afterAll(async () => {
  await t.close();
});

describe('a generic relation accepts only the types its definition lists', () => {
  test.each(PRIVATE)('a user allowed only to add contact assignments cannot point one at %s: 400, nothing written, no key anywhere', async (type) => {
    const u = await newUser(t);
    await grant(t, { users: [u.id], types: ['tenancy.contactassignment'], actions: ['add', 'view'] });
    const before = (await t.knex.raw(`SELECT count(*)::int AS n FROM "tenancy_contactassignment"`)).rows[0].n;
    const res = await t.api.post(ASSIGNMENTS).set(u.h).send({ content_type: type, object_id: adminTokenId, contact, role });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ content_type: [`Invalid content type: ${type}`] });
    expect(stringsIn(res.body).some((s) => s.includes(t.token))).toBe(false);
    expect((await t.knex.raw(`SELECT count(*)::int AS n FROM "tenancy_contactassignment"`)).rows[0].n).toBe(before);
  });

  test('a type the relation lists works, and the same bulk request with one private type writes nothing', async () => {
    const ok = await t.api.post(ASSIGNMENTS).set(t.auth).send({ content_type: 'dcim.site', object_id: site, contact, role });
    expect(ok.status).toBe(201);
    expect(ok.body.object).toEqual(expect.objectContaining({ id: site, display: 'Site' }));
    const bulk = await t.api.post(ASSIGNMENTS).set(t.auth).send([
      { content_type: 'dcim.site', object_id: site, contact, role: await made(t, '/api/tenancy/contact-roles/', { name: 'Bulk', slug: 'bulk' }) },
      { content_type: 'users.token', object_id: adminTokenId, contact, role },
    ]);
    expect(bulk.status).toBe(400);
    expect(bulk.body).toEqual([{}, { content_type: ['Invalid content type: users.token'] }]);
    expect(stringsIn(bulk.body).some((s) => s.includes(t.token))).toBe(false);
  });

  test('the content_type filter names only types the relation lists', async () => {
    expect((await t.api.get(`${ASSIGNMENTS}?content_type=users.token`).set(t.auth)).status).toBe(400);
    expect((await t.api.get(`${ASSIGNMENTS}?content_type=dcim.site`).set(t.auth)).body.count).toBeGreaterThan(0);
  });

  test('no generic relation of the registry lists a private type, but the one that says allow_private (an event rule\'s webhook)', () => {
    const offending = [...t.registry.models.values()].flatMap((m) =>
      m.fieldList.filter((f) => f.kind === 'generic_fk').flatMap((f) => (f.genericTargets ?? []).filter((x) => x.private).map((x) => `${m.label}.${f.name} -> ${x.label}${f.def.allow_private ? ' (allowed)' : ''}`)),
    );
    expect(offending).toEqual(['extras.eventrule.action_object -> extras.webhook (allowed)']);
    expect(PRIVATE.every((label) => t.registry.models.get(label)?.private)).toBe(true);
  });
});

describe('a reference stored before the rule (legacy rows) is never rendered, whoever asks', () => {
  beforeAll(async () => {
    // A contact assignment pointing at the superuser's token, as an older version let it be written.
    await t.knex.raw(
      `INSERT INTO "tenancy_contactassignment" ("content_type", "object_id", "contact_id", "role_id", "custom_fields") VALUES ('users.token', ?, ?, ?, '{}')`,
      [adminTokenId, contact, role],
    );
  });

  test('the superuser sees the assignment with object null and no key', async () => {
    const res = await t.api.get(`${ASSIGNMENTS}?content_type__n=dcim.site&limit=0`).set(t.auth);
    expect(res.status).toBe(200);
    const legacy = (res.body.results as Array<Record<string, unknown>>).find((r) => r.content_type === 'users.token');
    expect(legacy).toBeDefined();
    expect(legacy!.object).toBeNull();
    expect(stringsIn(res.body).some((s) => s.includes(t.token))).toBe(false);
  });

  test('with EXEMPT_VIEW_PERMISSIONS=* an anonymous caller sees no stored key, in any list', async () => {
    const anonymous = apiWith(t, { EXEMPT_VIEW_PERMISSIONS: '*' });
    for (const m of t.registry.byPath.values()) {
      const res = await anonymous.get(`/api/${m.app}/${m.path}/?limit=0`);
      expect([m.label, stringsIn(res.body).some((s) => s.includes(t.token))]).toEqual([m.label, false]);
    }
  });
});

describe('a secret is shown only in its own representation', () => {
  test('nested in another object it is left out, whatever the compiler is told to reveal', async () => {
    const token = t.registry.models.get('users.token')!;
    const render = async (form: Form, nested: boolean, revealSecrets: boolean): Promise<Record<string, unknown>> => {
      const object = new JsonCompiler(t.registry, { revealSecrets, revealShown: true, view: () => true }).object(token, 't', form, { nested });
      const statement = sql`SELECT ${object} AS "body" FROM "users_token" AS "t" WHERE "t"."key" = ${t.token}`.bindParams({ origin: 'http://x' });
      const [row] = await runRows<{ body: Record<string, unknown> }>(t.knex, statement);
      return row!.body;
    };
    expect((await render('brief', false, true)).key).toBe(t.token);
    expect(await render('brief', true, true)).not.toHaveProperty('key');
    expect(await render('full', true, true)).not.toHaveProperty('key');
    expect(await render('full', false, false)).not.toHaveProperty('key');
  });

  test('a token created in bulk shows its key in the response that creates it, and a token nowhere else', async () => {
    const res = await t.api.post('/api/users/tokens/').set(t.auth).send([{ description: 'a' }, { description: 'b' }]);
    expect(res.status).toBe(201);
    expect(res.body.map((r: { key: string }) => r.key)).toEqual([expect.stringMatching(/^[0-9a-f]{40}$/), expect.stringMatching(/^[0-9a-f]{40}$/)]);
    // The user's representation embeds nothing of its tokens.
    const me = await t.api.get('/api/users/users/?username=admin').set(t.auth);
    for (const key of res.body.map((r: { key: string }) => r.key)) expect(stringsIn(me.body).some((s) => s.includes(key))).toBe(false);
  });
});

describe('the definition language refuses what would open the hole again', () => {
  const loaded = (): LoadedDefinition[] => loadDefinitions(SCHEMA).map((l) => ({ ...l, def: JSON.parse(JSON.stringify(l.def)) }));
  const patched = (label: string, change: (def: Record<string, unknown>) => void): LoadedDefinition[] => {
    const all = loaded();
    const target = all.find((l) => `${l.def.app}.${l.def.model}` === label)!;
    change(target.def as unknown as Record<string, unknown>);
    return all;
  };
  const fields = (def: Record<string, unknown>) => def.fields as Record<string, Record<string, unknown>>;

  test('the schema as committed resolves', () => {
    expect(() => resolveRegistry(loaded())).not.toThrow();
  });

  test.each([
    ['a generic relation naming a private type', (d: Record<string, unknown>) => (fields(d).object!.to = ['dcim.site', 'users.token']), /users\.token is private/],
    ['a generic relation to any type (only a read-only model may point at every change-logged type)', (d: Record<string, unknown>) => (fields(d).object!.to = '*'), /"\*" is for a generic_fk of a read-only model/],
  ])('%s', (_what, change, message) => {
    expect(() => resolveRegistry(patched('tenancy.contactassignment', change))).toThrow(message);
  });

  test('a secret field on a model that is not private', () => {
    expect(() => resolveRegistry(patched('dcim.site', (d) => (fields(d).facility!.secret = true)))).toThrow(/a secret field belongs to a private model/);
  });

  test('a secret searched or ordered by', () => {
    expect(() => resolveRegistry(patched('users.token', (d) => (d.search = ['key'])))).toThrow(/a secret is never searched/);
    expect(() => resolveRegistry(patched('users.token', (d) => (d.ordering = ['key'])))).toThrow(/a secret is never ordered by/);
  });
});

describe('fields that name types accept only the types they may name', () => {
  test('a custom field maps to no private type, applies only to types with custom fields, and takes NetBox 4\'s object_types', async () => {
    const bad = await t.api.post('/api/extras/custom-fields/').set(t.auth).send({ name: 'leak', type: 'object', object_type: 'users.token', content_types: ['dcim.site'] });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ object_type: ['Invalid content type: users.token'] });
    const noFields = await t.api.post('/api/extras/custom-fields/').set(t.auth).send({ name: 'nowhere', content_types: ['users.token'] });
    expect(noFields.body).toEqual({ content_types: ['Invalid content type: users.token'] });
    const alias = await t.api.post('/api/extras/custom-fields/').set(t.auth).send({ name: 'aliased', object_types: ['dcim.site'] });
    expect([alias.status, alias.body.content_types]).toEqual([201, ['dcim.site']]);
  });

  test('a permission may name private types (it governs tokens and users); a tag only taggable ones', async () => {
    const u = await newUser(t);
    expect(await grant(t, { users: [u.id], types: ['users.token', 'users.user'], actions: ['view'] })).toEqual(expect.any(Number));
    const badPermission = await t.api.post('/api/users/permissions/').set(t.auth).send({ name: 'x', object_types: ['no.such'], actions: ['view'] });
    expect(badPermission.body).toEqual({ object_types: ['Invalid content type: no.such'] });
    const tag = await t.api.post('/api/extras/tags/').set(t.auth).send({ name: 'T', slug: 't', object_types: ['users.user'] });
    expect(tag.body).toEqual({ object_types: ['Invalid content type: users.user'] });
  });
});
