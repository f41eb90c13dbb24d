/**
 * Create, read, update, delete on the generated endpoints (spec 2.1 rules 7-8, 4.2, 7): status codes,
 * Location, array creates in request order, PUT vs PATCH, uniqueness errors, relations written by id or
 * by attributes, protected / set-null / cascading deletes, tree cycles, tags, generic relations.
 */
import { startTestApp, type TestApp } from '../support/test-app';
import { apiWith } from '../support/listen';

type Json = Record<string, unknown>;

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

function pathOf(url: unknown): string {
  return new URL(String(url)).pathname;
}

async function create(path: string, body: Json): Promise<Json> {
  const res = await t.api.post(path).set(t.auth).send(body);
  if (res.status !== 201) throw new Error(`POST ${path} ${JSON.stringify(body)} -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Json;
}

async function get(path: string): Promise<{ status: number; body: Json }> {
  const res = await t.api.get(path).set(t.auth);
  return { status: res.status, body: res.body as Json };
}

async function count(path: string): Promise<number> {
  const res = await t.api.get(`${path}?limit=1`).set(t.auth);
  expect(res.status).toBe(200);
  return (res.body as { count: number }).count;
}

/** A fresh suffix, so tests in this file do not collide on unique names. */
let n = 0;
const uniq = (base: string) => `${base}-${++n}`;

describe('POST', () => {
  test('one object: 201, the object, Location = its url', async () => {
    const res = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'Create One', slug: 'create-one', facility: 'F1' });
    expect(res.status).toBe(201);
    const body = res.body as Json;
    expect(body).toMatchObject({ name: 'Create One', slug: 'create-one', facility: 'F1', status: { value: 'active', label: 'Active' } });
    expect(typeof body.id).toBe('number');
    expect(res.headers.location).toBe(body.url);
    expect(pathOf(res.headers.location)).toBe(`/api/dcim/sites/${String(body.id)}/`);
    const again = await get(pathOf(body.url));
    expect(again.status).toBe(200);
    expect(again.body.name).toBe('Create One');
  });

  test('an array: 201, an array of the created objects in request order', async () => {
    const names = ['zulu', 'alpha', 'mike', 'bravo'].map((x) => uniq(x));
    const res = await t.api.post('/api/dcim/sites/').set(t.auth).send(names.map((name) => ({ name, slug: name })));
    expect(res.status).toBe(201);
    const body = res.body as Json[];
    expect(Array.isArray(body)).toBe(true);
    expect(body.map((s) => s.name)).toEqual(names);
    for (const s of body) expect((await get(pathOf(s.url))).body.name).toBe(s.name);
  });

  test('an array with a bad element: 400 with errors aligned to the elements, nothing created', async () => {
    const before = await count('/api/dcim/sites/');
    const a = uniq('ok');
    const res = await t.api.post('/api/dcim/sites/').set(t.auth).send([{ name: a, slug: a }, { slug: uniq('noname') }, { name: uniq('ok'), slug: 'bad slug!' }]);
    expect(res.status).toBe(400);
    const errors = res.body as Json[];
    expect(errors).toHaveLength(3);
    expect(errors[0]).toEqual({});
    expect(errors[1]).toEqual({ name: ['This field is required.'] });
    expect(Object.keys(errors[2]!)).toEqual(['slug']);
    expect(await count('/api/dcim/sites/')).toBe(before);
  });

  test('missing required fields: 400 {"field": ["This field is required."]}', async () => {
    const res = await t.api.post('/api/dcim/sites/').set(t.auth).send({ description: 'no name' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ name: ['This field is required.'], slug: ['This field is required.'] });
  });
});

describe('GET, PUT, PATCH, DELETE on a detail URL', () => {
  let site: Json;
  beforeAll(async () => {
    site = await create('/api/dcim/sites/', { name: 'Edit Me', slug: 'edit-me', description: 'original', facility: 'FAC' });
  });

  test('GET detail returns the object', async () => {
    const res = await get(pathOf(site.url));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: site.id, name: 'Edit Me', slug: 'edit-me', description: 'original' });
  });

  test('PUT needs the required fields: 400 naming each missing one, nothing changed', async () => {
    const res = await t.api.put(pathOf(site.url)).set(t.auth).send({ name: 'Renamed' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ slug: ['This field is required.'] });
    const empty = await t.api.put(pathOf(site.url)).set(t.auth).send({});
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({ name: ['This field is required.'], slug: ['This field is required.'] });
    expect((await get(pathOf(site.url))).body.name).toBe('Edit Me');
  });

  test('PUT with the required fields replaces them: 200 and the updated object', async () => {
    const res = await t.api.put(pathOf(site.url)).set(t.auth).send({ name: 'Put Name', slug: 'put-name', status: 'planned', description: 'put' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: site.id, name: 'Put Name', slug: 'put-name', status: { value: 'planned', label: 'Planned' }, description: 'put' });
    expect((await get(pathOf(site.url))).body).toMatchObject({ name: 'Put Name', slug: 'put-name', description: 'put' });
  });

  test('PUT accepts a GET body back unchanged (read-only fields ignored)', async () => {
    const current = (await get(pathOf(site.url))).body;
    const res = await t.api.put(pathOf(site.url)).set(t.auth).send({ ...current, status: 'active', region: null, tenant: null, tags: [] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: site.id, name: current.name, slug: current.slug, status: { value: 'active', label: 'Active' } });
  });

  test('PATCH changes only the fields sent', async () => {
    const before = (await get(pathOf(site.url))).body;
    await new Promise((r) => setTimeout(r, 20));
    const res = await t.api.patch(pathOf(site.url)).set(t.auth).send({ description: 'patched' });
    expect(res.status).toBe(200);
    const after = res.body as Json;
    expect(after.description).toBe('patched');
    for (const k of ['name', 'slug', 'facility', 'status', 'region', 'tenant', 'created']) expect({ k, v: after[k] }).toEqual({ k, v: before[k] });
    // The same fixed-width UTC format on both sides, so string order is time order.
    expect(String(after.last_updated) > String(before.last_updated)).toBe(true);
  });

  test('PATCH with a bad value: 400 naming the field, nothing changed', async () => {
    const res = await t.api.patch(pathOf(site.url)).set(t.auth).send({ status: 'on-fire', description: 'should not stick' });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body as object)).toEqual(['status']);
    expect((await get(pathOf(site.url))).body.description).toBe('patched');
  });

  test('PATCH of an unknown field is ignored, as NetBox ignores it; PATCHBAY_REJECT_UNKNOWN_FIELDS makes it a 400 naming it', async () => {
    const before = (await get(pathOf(site.url))).body;
    const res = await t.api.patch(pathOf(site.url)).set(t.auth).send({ colour: 'blue', description: 'known' });
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('colour');
    expect(res.body.description).toBe('known');
    const strict = await apiWith(t, { PATCHBAY_REJECT_UNKNOWN_FIELDS: 'true' }).patch(pathOf(site.url)).set(t.auth).send({ colour: 'blue', description: 'strict' });
    expect(strict.status).toBe(400);
    expect(strict.body).toEqual({ colour: ['Unknown field.'] });
    expect((await get(pathOf(site.url))).body.description).toBe('known');
    await t.api.patch(pathOf(site.url)).set(t.auth).send({ description: before.description });
  });

  test('DELETE: 204 with an empty body, then 404', async () => {
    const victim = await create('/api/dcim/sites/', { name: 'Delete Me', slug: 'delete-me' });
    const res = await t.api.delete(pathOf(victim.url)).set(t.auth);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.headers['content-length'] ?? '0').toBe('0');
    const gone = await get(pathOf(victim.url));
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ detail: 'Not found.' });
    const again = await t.api.delete(pathOf(victim.url)).set(t.auth);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ detail: 'Not found.' });
  });

  test('writes without a token: 403, nothing written', async () => {
    const res = await t.api.patch(pathOf(site.url)).send({ description: 'anonymous' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'Authentication credentials were not provided.' });
    expect((await get(pathOf(site.url))).body.description).toBe('patched');
  });
});

describe('uniqueness', () => {
  test('a unique field: 400 naming the field, "... with this name already exists."', async () => {
    await create('/api/dcim/sites/', { name: 'Unique Site', slug: 'unique-site' });
    const byName = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'Unique Site', slug: 'other-slug' });
    expect(byName.status).toBe(400);
    expect(byName.body).toEqual({ name: ['site with this name already exists.'] });
    const bySlug = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'Other Name', slug: 'unique-site' });
    expect(bySlug.status).toBe(400);
    expect(bySlug.body).toEqual({ slug: ['site with this slug already exists.'] });
  });

  test('a unique violation by PATCH: 400 naming the field, nothing changed', async () => {
    const a = await create('/api/ipam/rirs/', { name: 'RIR A', slug: 'rir-a' });
    await create('/api/ipam/rirs/', { name: 'RIR B', slug: 'rir-b' });
    const res = await t.api.patch(pathOf(a.url)).set(t.auth).send({ name: 'RIR B' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ name: ['RIR with this name already exists.'] });
    expect((await get(pathOf(a.url))).body.name).toBe('RIR A');
  });

  test('unique together (VLAN group + vid): 400 non_field_errors', async () => {
    const g = await create('/api/ipam/vlan-groups/', { name: 'UT Group', slug: 'ut-group' });
    await create('/api/ipam/vlans/', { vid: 100, name: 'ut-100', group: g.id });
    const res = await t.api.post('/api/ipam/vlans/').set(t.auth).send({ vid: 100, name: 'ut-other', group: g.id });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body as object)).toEqual(['non_field_errors']);
    expect((res.body as { non_field_errors: unknown[] }).non_field_errors).toEqual([expect.any(String)]);
    // The same vid in another group is fine.
    const g2 = await create('/api/ipam/vlan-groups/', { name: 'UT Group 2', slug: 'ut-group-2' });
    const ok = await t.api.post('/api/ipam/vlans/').set(t.auth).send({ vid: 100, name: 'ut-100', group: g2.id });
    expect(ok.status).toBe(201);
  });

  test('unique together with an empty parent (tenant name per group): 400 non_field_errors', async () => {
    await create('/api/tenancy/tenants/', { name: 'Same Tenant', slug: 'same-tenant' });
    const res = await t.api.post('/api/tenancy/tenants/').set(t.auth).send({ name: 'Same Tenant', slug: 'same-tenant-2' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ non_field_errors: ['Tenant name must be unique per group.'] });
  });

  test('a unique violation inside an array create: the element\'s errors, nothing created', async () => {
    const before = await count('/api/ipam/rirs/');
    const res = await t.api.post('/api/ipam/rirs/').set(t.auth).send([{ name: 'RIR C', slug: 'rir-c' }, { name: 'RIR C', slug: 'rir-c2' }]);
    expect(res.status).toBe(400);
    expect(res.body).toEqual([{}, { name: ['RIR with this name already exists.'] }]);
    expect(await count('/api/ipam/rirs/')).toBe(before);
  });
});

describe('writing relations by id or by attributes', () => {
  let region: Json;
  let group: Json;
  let vlan: Json;
  beforeAll(async () => {
    region = await create('/api/dcim/regions/', { name: 'Rel Region', slug: 'r1' });
    group = await create('/api/ipam/vlan-groups/', { name: 'Rel Group', slug: 'g' });
    vlan = await create('/api/ipam/vlans/', { vid: 10, name: 'rel-10', group: group.id });
    const other = await create('/api/ipam/vlan-groups/', { name: 'Rel Group 2', slug: 'g2' });
    await create('/api/ipam/vlans/', { vid: 10, name: 'rel-10b', group: other.id });
  });

  test('by id', async () => {
    const site = await create('/api/dcim/sites/', { name: uniq('rel-id'), slug: uniq('rel-id'), region: region.id });
    expect((site.region as Json).id).toBe(region.id);
  });

  test('by an attributes object: {"region": {"slug": "r1"}}', async () => {
    const site = await create('/api/dcim/sites/', { name: uniq('rel-attr'), slug: uniq('rel-attr'), region: { slug: 'r1' } });
    expect((site.region as Json).id).toBe(region.id);
  });

  test('by nested attributes: {"vlan": {"group": {"slug": "g"}, "vid": 10}}', async () => {
    const prefix = await create('/api/ipam/prefixes/', { prefix: '10.77.0.0/24', vlan: { group: { slug: 'g' }, vid: 10 } });
    expect((prefix.vlan as Json).id).toBe(vlan.id);
  });

  test('attributes matching several objects: 400 naming the field', async () => {
    const res = await t.api.post('/api/ipam/prefixes/').set(t.auth).send({ prefix: '10.78.0.0/24', vlan: { vid: 10 } });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body as object)).toEqual(['vlan']);
    expect((res.body as { vlan: string[] }).vlan).toEqual([expect.stringContaining('Multiple objects match')]);
  });

  test('attributes matching nothing: 400 naming the field', async () => {
    const res = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: uniq('rel-none'), slug: uniq('rel-none'), region: { slug: 'no-such-region' } });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body as object)).toEqual(['region']);
    expect((res.body as { region: string[] }).region).toEqual([expect.stringContaining('not found')]);
    const nested = await t.api.post('/api/ipam/prefixes/').set(t.auth).send({ prefix: '10.79.0.0/24', vlan: { group: { slug: 'g' }, vid: 11 } });
    expect(nested.status).toBe(400);
    expect(Object.keys(nested.body as object)).toEqual(['vlan']);
  });

  test('an id that does not exist: 400 naming the field', async () => {
    const res = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: uniq('rel-bad'), slug: uniq('rel-bad'), region: 987654 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ region: ['Invalid pk "987654" - object does not exist.'] });
  });

  test('an unknown attribute or a wrong shape: 400 naming the field, never 500', async () => {
    for (const region of [{ nope: 'x' }, 'r1', [1], true, 1.5, -3, { slug: { deeper: 1 } }]) {
      const res = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: uniq('rel-shape'), slug: uniq('rel-shape'), region });
      expect({ region, status: res.status, fields: Object.keys(res.body as object) }).toEqual({ region, status: 400, fields: ['region'] });
    }
  });

  test('null clears a relation', async () => {
    const site = await create('/api/dcim/sites/', { name: uniq('rel-null'), slug: uniq('rel-null'), region: region.id });
    const res = await t.api.patch(pathOf(site.url)).set(t.auth).send({ region: null });
    expect(res.status).toBe(200);
    expect((res.body as Json).region).toBeNull();
  });
});

describe('deleting related objects', () => {
  test('protected: a site referenced by a prefix is 409 "Unable to delete object. ..." and nothing is deleted', async () => {
    const site = await create('/api/dcim/sites/', { name: 'Protected Site', slug: 'protected-site' });
    const prefix = await create('/api/ipam/prefixes/', { prefix: '10.90.0.0/24', site: site.id });
    const res = await t.api.delete(pathOf(site.url)).set(t.auth);
    expect(res.status).toBe(409);
    const detail = (res.body as { detail: string }).detail;
    expect(detail.startsWith('Unable to delete object.')).toBe(true);
    expect(detail).toContain('10.90.0.0/24');
    expect((await get(pathOf(site.url))).status).toBe(200);
    expect((await get(pathOf(prefix.url))).body.site).toMatchObject({ id: site.id });
  });

  test('protected in a bulk delete: 409 and none of the listed objects deleted', async () => {
    const free = await create('/api/dcim/sites/', { name: 'Free Site', slug: 'free-site' });
    const held = await create('/api/dcim/sites/', { name: 'Held Site', slug: 'held-site' });
    await create('/api/ipam/prefixes/', { prefix: '10.91.0.0/24', site: held.id });
    const res = await t.api.delete('/api/dcim/sites/').set(t.auth).send([{ id: free.id }, { id: held.id }]);
    expect(res.status).toBe(409);
    expect((res.body as { detail: string }).detail.startsWith('Unable to delete object.')).toBe(true);
    expect((await get(pathOf(free.url))).status).toBe(200);
    expect((await get(pathOf(held.url))).status).toBe(200);
  });

  test('set_null: deleting a region nulls its sites\' region; deleting a role nulls prefixes\' role', async () => {
    const region = await create('/api/dcim/regions/', { name: 'Doomed Region', slug: 'doomed-region' });
    const site = await create('/api/dcim/sites/', { name: 'Orphan Site', slug: 'orphan-site', region: region.id });
    expect((await t.api.delete(pathOf(region.url)).set(t.auth)).status).toBe(204);
    const after = await get(pathOf(site.url));
    expect(after.status).toBe(200);
    expect(after.body.region).toBeNull();

    const role = await create('/api/ipam/roles/', { name: 'Doomed Role', slug: 'doomed-role' });
    const prefix = await create('/api/ipam/prefixes/', { prefix: '10.92.0.0/24', role: role.id });
    expect((await t.api.delete(pathOf(role.url)).set(t.auth)).status).toBe(204);
    const p = await get(pathOf(prefix.url));
    expect(p.status).toBe(200);
    expect(p.body.role).toBeNull();
  });

  test('cascade: deleting a region deletes its child regions', async () => {
    const parent = await create('/api/dcim/regions/', { name: 'Cascade Parent', slug: 'cascade-parent' });
    const child = await create('/api/dcim/regions/', { name: 'Cascade Child', slug: 'cascade-child', parent: parent.id });
    expect((await t.api.delete(pathOf(parent.url)).set(t.auth)).status).toBe(204);
    expect((await get(pathOf(child.url))).status).toBe(404);
  });
});

describe('trees', () => {
  test('a parent cycle is refused: self, or a descendant', async () => {
    const a = await create('/api/dcim/regions/', { name: 'Tree A', slug: 'tree-a' });
    const b = await create('/api/dcim/regions/', { name: 'Tree B', slug: 'tree-b', parent: a.id });
    const c = await create('/api/dcim/regions/', { name: 'Tree C', slug: 'tree-c', parent: b.id });
    const self = await t.api.patch(pathOf(a.url)).set(t.auth).send({ parent: a.id });
    expect(self.status).toBe(400);
    expect(Object.keys(self.body as object)).toEqual(['parent']);
    const grandchild = await t.api.patch(pathOf(a.url)).set(t.auth).send({ parent: c.id });
    expect(grandchild.status).toBe(400);
    expect(Object.keys(grandchild.body as object)).toEqual(['parent']);
    const byAttrs = await t.api.patch(pathOf(a.url)).set(t.auth).send({ parent: { slug: 'tree-b' } });
    expect(byAttrs.status).toBe(400);
    expect(Object.keys(byAttrs.body as object)).toEqual(['parent']);
    expect((await get(pathOf(a.url))).body.parent).toBeNull();
    // Moving a node under an unrelated one is fine, and depths follow.
    const other = await create('/api/dcim/regions/', { name: 'Tree Other', slug: 'tree-other' });
    const moved = await t.api.patch(pathOf(a.url)).set(t.auth).send({ parent: other.id });
    expect(moved.status).toBe(200);
    expect((moved.body as Json)._depth).toBe(1);
    expect((await get(pathOf(c.url))).body._depth).toBe(3);
  });
});

describe('tags', () => {
  let red: Json;
  let blue: Json;
  let site: Json;
  beforeAll(async () => {
    const res = await t.api.post('/api/extras/tags/').set(t.auth).send([{ name: 'Red', slug: 'red', color: 'ff0000' }, { name: 'Blue', slug: 'blue', color: '0000ff' }]);
    expect(res.status).toBe(201);
    [red, blue] = res.body as Json[];
    site = await create('/api/dcim/sites/', { name: 'Tagged Site', slug: 'tagged-site' });
  });

  function tagIds(body: Json): unknown[] {
    return (body.tags as Json[]).map((x) => x.id);
  }

  test('written as ids, read back as nested tags', async () => {
    const res = await t.api.patch(pathOf(site.url)).set(t.auth).send({ tags: [red!.id] });
    expect(res.status).toBe(200);
    const tags = (res.body as Json).tags as Json[];
    expect(tags).toHaveLength(1);
    expect(Object.keys(tags[0]!)).toEqual(['id', 'url', 'display', 'name', 'slug', 'color']);
    expect(tags[0]).toMatchObject({ id: red!.id, display: 'Red', name: 'Red', slug: 'red', color: 'ff0000' });
    expect(pathOf(tags[0]!.url)).toBe(pathOf(red!.url));
  });

  test('written as [{"slug": ...}] and [{"name": ...}] objects', async () => {
    const res = await t.api.patch(pathOf(site.url)).set(t.auth).send({ tags: [{ slug: 'red' }, { name: 'Blue' }] });
    expect(res.status).toBe(200);
    expect(tagIds(res.body as Json).sort()).toEqual([red!.id, blue!.id].sort());
    const again = await get(pathOf(site.url));
    expect(tagIds(again.body).sort()).toEqual([red!.id, blue!.id].sort());
  });

  test('a tag list replaces the previous one; [] clears', async () => {
    const one = await t.api.patch(pathOf(site.url)).set(t.auth).send({ tags: [blue!.id] });
    expect(tagIds(one.body as Json)).toEqual([blue!.id]);
    const none = await t.api.patch(pathOf(site.url)).set(t.auth).send({ tags: [] });
    expect((none.body as Json).tags).toEqual([]);
  });

  test('tags on create, and PATCH without tags keeps them', async () => {
    const s = await create('/api/dcim/sites/', { name: 'Born Tagged', slug: 'born-tagged', tags: [{ slug: 'blue' }] });
    expect(tagIds(s)).toEqual([blue!.id]);
    const res = await t.api.patch(pathOf(s.url)).set(t.auth).send({ description: 'still tagged' });
    expect(tagIds(res.body as Json)).toEqual([blue!.id]);
  });

  test('an unknown tag (id, slug or name): 400 naming tags, nothing changed', async () => {
    await t.api.patch(pathOf(site.url)).set(t.auth).send({ tags: [red!.id] });
    for (const tags of [[987654], [{ slug: 'no-such-tag' }], [{ name: 'No Such Tag' }], [red!.id, { slug: 'no-such-tag' }], 'red', [{ color: '9e9e9e', nope: 1 }]]) {
      const res = await t.api.patch(pathOf(site.url)).set(t.auth).send({ tags });
      expect({ tags, status: res.status, fields: Object.keys(res.body as object) }).toEqual({ tags, status: 400, fields: ['tags'] });
    }
    expect(tagIds((await get(pathOf(site.url))).body)).toEqual([red!.id]);
  });
});

describe('generic relations', () => {
  test('ip-address: assigned_object_type and assigned_object_id both null is fine', async () => {
    const ip = await create('/api/ipam/ip-addresses/', { address: '10.100.0.1/24', assigned_object_type: null, assigned_object_id: null });
    expect(ip).toMatchObject({ assigned_object_type: null, assigned_object_id: null, assigned_object: null });
    const omitted = await create('/api/ipam/ip-addresses/', { address: '10.100.0.2/24' });
    expect(omitted).toMatchObject({ assigned_object_type: null, assigned_object_id: null, assigned_object: null });
  });

  test.each([
    ['dcim.site', 'an existing type the relation does not allow'],
    ['ipam.prefix', 'an existing type the relation does not allow'],
    ['no.such', 'an unknown type'],
    ['', 'an empty type'],
  ])('ip-address: assigned_object_type %p (%s) is a 400 naming assigned_object_type', async (type) => {
    const before = await count('/api/ipam/ip-addresses/');
    const res = await t.api.post('/api/ipam/ip-addresses/').set(t.auth).send({ address: '10.101.0.1/24', assigned_object_type: type, assigned_object_id: 1 });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body as object)).toEqual(['assigned_object_type']);
    expect(await count('/api/ipam/ip-addresses/')).toBe(before);
  });

  test('ip-address: a type the relation names but not defined yet (dcim.interface) is a 400 naming assigned_object_type', async () => {
    const field = t.registry.models.get('ipam.ipaddress')!.fields.get('assigned_object')!;
    const targets = Array.isArray(field.def.to) ? field.def.to : [];
    expect(targets).toEqual(expect.arrayContaining(['dcim.interface', 'virtualization.vminterface']));
    for (const type of targets) {
      const res = await t.api.post('/api/ipam/ip-addresses/').set(t.auth).send({ address: '10.101.0.2/24', assigned_object_type: type, assigned_object_id: 987654 });
      // Once the type is defined it is accepted as a type, and the missing object is what is refused.
      const named = t.registry.models.has(type) ? 'assigned_object_id' : 'assigned_object_type';
      expect({ type, status: res.status, fields: Object.keys(res.body as object) }).toEqual({ type, status: 400, fields: [named] });
    }
  });

  test('ip-address: one half of the relation without the other is a 400 naming the missing half', async () => {
    const noId = await t.api.post('/api/ipam/ip-addresses/').set(t.auth).send({ address: '10.102.0.1/24', assigned_object_type: 'dcim.interface' });
    expect(noId.status).toBe(400);
    expect(Object.keys(noId.body as object)).toContain('assigned_object_id');
    const noType = await t.api.post('/api/ipam/ip-addresses/').set(t.auth).send({ address: '10.102.0.1/24', assigned_object_id: 5 });
    expect(noType.status).toBe(400);
    expect(Object.keys(noType.body as object)).toEqual(['assigned_object_type']);
  });

  test('vlan-group scope (a generic relation to existing types): written by type + id, read back nested', async () => {
    const site = await create('/api/dcim/sites/', { name: 'Scope Site', slug: 'scope-site' });
    const group = await create('/api/ipam/vlan-groups/', { name: 'Scoped', slug: 'scoped', scope_type: 'dcim.site', scope_id: site.id });
    expect(group.scope_type).toBe('dcim.site');
    expect(group.scope_id).toBe(site.id);
    expect(Object.keys(group.scope as object)).toEqual(['id', 'url', 'display', 'name', 'slug']);
    expect(group.scope).toMatchObject({ id: site.id, name: 'Scope Site', slug: 'scope-site' });

    const wrongType = await t.api.post('/api/ipam/vlan-groups/').set(t.auth).send({ name: 'Bad Scope', slug: 'bad-scope', scope_type: 'ipam.prefix', scope_id: 1 });
    expect(wrongType.status).toBe(400);
    expect(Object.keys(wrongType.body as object)).toEqual(['scope_type']);
    const missing = await t.api.post('/api/ipam/vlan-groups/').set(t.auth).send({ name: 'Bad Scope', slug: 'bad-scope', scope_type: 'dcim.site', scope_id: 987654 });
    expect(missing.status).toBe(400);
    expect(Object.keys(missing.body as object)).toEqual(['scope_id']);

    const cleared = await t.api.patch(pathOf(group.url)).set(t.auth).send({ scope_type: null, scope_id: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ scope_type: null, scope_id: null, scope: null });
  });
});
