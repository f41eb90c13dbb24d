import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Bulk operations on a list endpoint (spec 4.2 rules 3-5, section 7): arrays answered in request order,
 * errors as a list aligned with the request's elements, and all-or-none — after a refused request every
 * object is re-read and must be exactly as before.
 */

let t: TestApp;
let seq = 0;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const SITES = '/api/dcim/sites/';

async function countOf(label: string): Promise<number> {
  const r = await t.knex.raw(`SELECT count(*)::int AS n FROM "${t.registry.models.get(label)!.table}"`);
  return (r.rows as Array<{ n: number }>)[0]!.n;
}

async function makeSites(n: number): Promise<Array<Record<string, unknown>>> {
  const body = Array.from({ length: n }, () => {
    seq++;
    return { name: `Bulk site ${seq}`, slug: `bulk-site-${seq}`, description: `d${seq}` };
  });
  const res = await t.api.post(SITES).set(t.auth).send(body);
  expect(res.status).toBe(201);
  return res.body as Array<Record<string, unknown>>;
}

/** A representation without its origin: supertest serves each request on a new port. */
function norm<T>(value: T): T {
  return JSON.parse(JSON.stringify(value).replace(/https?:\/\/[^/"]+\/api\//g, '/api/')) as T;
}

/** Every object re-read through its detail endpoint (the status instead when it is not 200). */
async function reread(path: string, ids: unknown[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const id of ids) {
    const res = await t.api.get(`${path}${String(id)}/`).set(t.auth);
    out.push(res.status === 200 ? norm(res.body) : res.status);
  }
  return out;
}

describe('bulk create', () => {
  test('answers in request order with 201', async () => {
    const names = ['Zulu', 'Alpha', 'Mike'].map((n) => `${n} ${++seq}`);
    const res = await t.api.post(SITES).set(t.auth).send(names.map((name) => ({ name, slug: name.toLowerCase().replace(' ', '-') })));
    expect(res.status).toBe(201);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.map((s: { name: string }) => s.name)).toEqual(names);
    const ids = res.body.map((s: { id: number }) => s.id);
    expect([...ids].sort((a: number, b: number) => a - b)).toEqual(ids);
  });

  test('errors come back aligned with the elements, and nothing is created', async () => {
    const before = await countOf('dcim.site');
    const res = await t.api
      .post(SITES)
      .set(t.auth)
      .send([{ name: 'Good one', slug: 'good-one' }, { slug: 'no-name' }, { name: 'Good two', slug: 'good-two' }, { name: 'Bad status', slug: 'bad-status', status: 'nope' }]);
    expect(res.status).toBe(400);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body).toHaveLength(4);
    expect(res.body[0]).toEqual({});
    expect(Object.keys(res.body[1])).toEqual(['name']);
    expect(res.body[1].name).toEqual(['This field is required.']);
    expect(res.body[2]).toEqual({});
    expect(Object.keys(res.body[3])).toEqual(['status']);
    expect(await countOf('dcim.site')).toBe(before);
    const list = await t.api.get(`${SITES}?limit=0`).set(t.auth);
    expect(list.body.results.map((s: { slug: string }) => s.slug)).not.toContain('good-one');
  });

  test('a unique clash inside the batch is that element\'s error, and nothing is created', async () => {
    const before = await countOf('dcim.site');
    const res = await t.api.post(SITES).set(t.auth).send([{ name: 'Twin', slug: 'twin-1' }, { name: 'Twin', slug: 'twin-2' }]);
    expect(res.status).toBe(400);
    expect(res.body).toEqual([{}, { name: [expect.stringMatching(/already exists/)] }]);
    expect(await countOf('dcim.site')).toBe(before);
  });

  test('a unique clash with an existing object is reported at its position', async () => {
    const [existing] = await makeSites(1);
    const before = await countOf('dcim.site');
    const res = await t.api.post(SITES).set(t.auth).send([{ name: 'Fresh', slug: 'fresh' }, { name: 'Other', slug: existing!.slug }]);
    expect(res.status).toBe(400);
    expect(res.body).toEqual([{}, { slug: [expect.stringMatching(/already exists/)] }]);
    expect(await countOf('dcim.site')).toBe(before);
  });

  test('an element that is not an object is an aligned error', async () => {
    const before = await countOf('dcim.site');
    const res = await t.api.post(SITES).set(t.auth).send([{ name: 'Fine', slug: 'fine' }, 'oops', [1]]);
    expect(res.status).toBe(400);
    expect(res.body).toHaveLength(3);
    expect(res.body[0]).toEqual({});
    expect(Object.keys(res.body[1])).toEqual(['non_field_errors']);
    expect(Object.keys(res.body[2])).toEqual(['non_field_errors']);
    expect(await countOf('dcim.site')).toBe(before);
  });

  test('an empty list is a 400', async () => {
    const res = await t.api.post(SITES).set(t.auth).send([]);
    expect(res.status).toBe(400);
    expect(res.body).toHaveProperty('non_field_errors');
  });
});

describe.each(['patch', 'put'] as const)('bulk %s', (method) => {
  const full = (s: Record<string, unknown>, extra: Record<string, unknown>) => (method === 'put' ? { id: s.id, name: s.name, slug: s.slug, ...extra } : { id: s.id, ...extra });

  test('updates every listed object and answers in request order', async () => {
    const [a, b, c] = await makeSites(3);
    const body = [full(c!, { description: 'third first' }), full(a!, { status: 'planned' }), full(b!, { name: `${String(b!.name)} renamed`, facility: 'F1' })];
    const res = await t.api[method](SITES).set(t.auth).send(body);
    expect(res.status).toBe(200);
    expect(res.body.map((s: { id: number }) => s.id)).toEqual([c!.id, a!.id, b!.id]);
    const [rc, ra, rb] = (await reread(SITES, [c!.id, a!.id, b!.id])) as Array<Record<string, any>>;
    expect(rc!.description).toBe('third first');
    expect(ra!.status.value).toBe('planned');
    expect(rb!.name).toBe(`${String(b!.name)} renamed`);
    expect(rb!.facility).toBe('F1');
    expect(norm(res.body)).toEqual([rc, ra, rb]);
  });

  test('one invalid element: 400 aligned, and nothing changes', async () => {
    const sites = await makeSites(3);
    const ids = sites.map((s) => s.id);
    const before = await reread(SITES, ids);
    const body = [full(sites[0]!, { description: 'changed' }), full(sites[1]!, { status: 'not-a-status' }), full(sites[2]!, { description: 'changed too' })];
    const res = await t.api[method](SITES).set(t.auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toHaveLength(3);
    expect(res.body[0]).toEqual({});
    expect(Object.keys(res.body[1])).toEqual(['status']);
    expect(res.body[2]).toEqual({});
    expect(await reread(SITES, ids)).toEqual(before);
  });

  test('a unique clash in a later element: 400, and the earlier element is not changed', async () => {
    const sites = await makeSites(3);
    const ids = sites.map((s) => s.id);
    const before = await reread(SITES, ids);
    const body = [full(sites[0]!, { description: 'changed', facility: 'X' }), full(sites[1]!, { name: sites[2]!.name })];
    const res = await t.api[method](SITES).set(t.auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual([{}, { name: [expect.stringMatching(/already exists/)] }]);
    expect(await reread(SITES, ids)).toEqual(before);
  });

  test('ids that do not exist: 400 naming them, and nothing changes', async () => {
    const sites = await makeSites(2);
    const ids = sites.map((s) => s.id);
    const before = await reread(SITES, ids);
    const res = await t.api[method](SITES).set(t.auth).send([full(sites[0]!, { description: 'changed' }), { ...full(sites[1]!, { description: 'changed' }), id: 987654321 }]);
    expect(res.status).toBe(400);
    expect(res.body).toHaveLength(2);
    expect(res.body[0]).toEqual({});
    expect(Object.keys(res.body[1])).toEqual(['id']);
    expect(await reread(SITES, ids)).toEqual(before);
  });

  test('elements without a usable id, duplicate ids, or not a list: 400 and nothing changes', async () => {
    const sites = await makeSites(2);
    const ids = sites.map((s) => s.id);
    const before = await reread(SITES, ids);
    const bodies: unknown[] = [
      [full(sites[0]!, { description: 'x' }), { description: 'no id' }],
      [full(sites[0]!, { description: 'x' }), { ...full(sites[1]!, { description: 'x' }), id: 'abc' }],
      [full(sites[0]!, { description: 'x' }), { ...full(sites[1]!, { description: 'x' }), id: -3 }],
      [full(sites[0]!, { description: 'x' }), full(sites[0]!, { description: 'y' })],
      full(sites[0]!, { description: 'x' }),
    ];
    for (const body of bodies) {
      const res = await t.api[method](SITES).set(t.auth).send(body as object);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
    }
    // An empty list changes nothing and is not an error (pynetbox sends one for an empty RecordSet).
    const empty = await t.api[method](SITES).set(t.auth).send([]);
    expect([empty.status, empty.body]).toEqual([200, []]);
    expect(await reread(SITES, ids)).toEqual(before);
  });
});

test('bulk PUT requires the required fields of every element', async () => {
  const sites = await makeSites(2);
  const ids = sites.map((s) => s.id);
  const before = await reread(SITES, ids);
  const res = await t.api.put(SITES).set(t.auth).send([{ id: sites[0]!.id, name: sites[0]!.name, slug: sites[0]!.slug, description: 'x' }, { id: sites[1]!.id, description: 'x' }]);
  expect(res.status).toBe(400);
  expect(res.body[0]).toEqual({});
  expect(Object.keys(res.body[1]).sort()).toEqual(['name', 'slug']);
  expect(await reread(SITES, ids)).toEqual(before);
});

test('bulk PATCH of prefixes across relations is all-or-none too', async () => {
  const vrf = await t.api.post('/api/ipam/vrfs/').set(t.auth).send({ name: 'Bulk VRF' });
  const created = await t.api.post('/api/ipam/prefixes/').set(t.auth).send([{ prefix: '10.50.0.0/16' }, { prefix: '10.51.0.0/16' }]);
  expect(created.status).toBe(201);
  const ids = created.body.map((p: { id: number }) => p.id);
  const before = await reread('/api/ipam/prefixes/', ids);
  const bad = await t.api
    .patch('/api/ipam/prefixes/')
    .set(t.auth)
    .send([{ id: ids[0], vrf: vrf.body.id, is_pool: true }, { id: ids[1], vrf: 987654 }]);
  expect(bad.status).toBe(400);
  expect(bad.body).toEqual([{}, { vrf: [expect.any(String)] }]);
  expect(await reread('/api/ipam/prefixes/', ids)).toEqual(before);
  const good = await t.api.patch('/api/ipam/prefixes/').set(t.auth).send([{ id: ids[1], vrf: { name: 'Bulk VRF' } }, { id: ids[0], prefix: '10.52.0.0/16' }]);
  expect(good.status).toBe(200);
  expect(good.body.map((p: { id: number }) => p.id)).toEqual([ids[1], ids[0]]);
  expect(good.body[0].vrf.id).toBe(vrf.body.id);
  expect(good.body[1].prefix).toBe('10.52.0.0/16');
});

describe('bulk delete', () => {
  test('deletes every listed object: 204 with an empty body', async () => {
    const sites = await makeSites(3);
    const res = await t.api.delete(SITES).set(t.auth).send(sites.map((s) => ({ id: s.id })));
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await reread(SITES, sites.map((s) => s.id))).toEqual([404, 404, 404]);
  });

  test('one protected object (a site referenced by a prefix): 409 naming it, and none is deleted', async () => {
    const sites = await makeSites(3);
    const ids = sites.map((s) => s.id);
    const prefix = await t.api.post('/api/ipam/prefixes/').set(t.auth).send({ prefix: '192.0.2.0/24', site: sites[1]!.id });
    expect(prefix.status).toBe(201);
    const before = await reread(SITES, ids);
    const res = await t.api.delete(SITES).set(t.auth).send(ids.map((id) => ({ id })));
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatch(/^Unable to delete object\. 1 dependent objects were found: 192\.0\.2\.0\/24/);
    expect(await reread(SITES, ids)).toEqual(before);
    // Once the prefix is gone, the same request succeeds.
    expect((await t.api.delete(`/api/ipam/prefixes/${prefix.body.id}/`).set(t.auth)).status).toBe(204);
    expect((await t.api.delete(SITES).set(t.auth).send(ids.map((id) => ({ id })))).status).toBe(204);
    expect(await reread(SITES, ids)).toEqual([404, 404, 404]);
  });

  test('a parent and its child (a cascading tree) in one request: both deleted', async () => {
    const parent = await t.api.post('/api/dcim/regions/').set(t.auth).send({ name: 'Bulk parent', slug: 'bulk-parent' });
    const child = await t.api.post('/api/dcim/regions/').set(t.auth).send({ name: 'Bulk child', slug: 'bulk-child', parent: parent.body.id });
    expect(child.status).toBe(201);
    const res = await t.api.delete('/api/dcim/regions/').set(t.auth).send([{ id: child.body.id }, { id: parent.body.id }]);
    expect(res.status).toBe(204);
    expect(await reread('/api/dcim/regions/', [parent.body.id, child.body.id])).toEqual([404, 404]);
  });

  test('ids that do not exist: 400, and none is deleted', async () => {
    const sites = await makeSites(2);
    const ids = sites.map((s) => s.id);
    const before = await reread(SITES, ids);
    const res = await t.api.delete(SITES).set(t.auth).send([{ id: ids[0] }, { id: 987654321 }, { id: ids[1] }]);
    expect(res.status).toBe(400);
    expect(res.body).toHaveLength(3);
    expect(res.body[0]).toEqual({});
    expect(Object.keys(res.body[1])).toEqual(['id']);
    expect(res.body[2]).toEqual({});
    expect(await reread(SITES, ids)).toEqual(before);
  });

  test('malformed bulk delete bodies: 400, and none is deleted', async () => {
    const sites = await makeSites(2);
    const ids = sites.map((s) => s.id);
    const before = await reread(SITES, ids);
    for (const body of [[{ id: ids[0] }, {}], [{ id: ids[0] }, { id: 'x' }], [{ id: ids[0] }, 5], { id: ids[0] }]) {
      const res = await t.api.delete(SITES).set(t.auth).send(body as object);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
    }
    // An empty list deletes nothing and is not an error.
    expect((await t.api.delete(SITES).set(t.auth).send([])).status).toBe(204);
    expect(await reread(SITES, ids)).toEqual(before);
  });
});

/**
 * Bulk writes are set-based (issue 14): the elements' rows go in one INSERT or UPDATE per set of columns,
 * so a request's statements do not grow with its size; the definitions' checks are judged on all of them
 * in one statement, and a refusal still comes back aligned with the elements.
 */
describe('set-based bulk writes', () => {
  const statementsOf = async (send: () => Promise<{ status: number }>) => {
    t.queries.reset();
    const res = await send();
    return { status: res.status, n: t.queries.count };
  };
  const sites = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ name: `Set ${tag} ${i}`, slug: `set-${tag}-${i}`, description: `d${i}`, custom_fields: {} }));

  test('a create or change of 100 objects costs the statements of one of 2', async () => {
    const small = await statementsOf(() => t.api.post(SITES).set(t.auth).send(sites(2, 'small')));
    const large = await statementsOf(() => t.api.post(SITES).set(t.auth).send(sites(100, 'large')));
    expect([small.status, large.status]).toEqual([201, 201]);
    expect(large.n).toBe(small.n);
    const made = (await t.api.get(`${SITES}?slug__isw=set-large-&limit=100&ordering=id`).set(t.auth)).body.results as Array<{ id: number; slug: string }>;
    expect(made.map((s) => s.slug)).toEqual(Array.from({ length: 100 }, (_, i) => `set-large-${i}`));
    const two = made.slice(0, 2).map((s, i) => ({ id: s.id, description: `two ${i}`, custom_fields: {} }));
    const hundred = made.map((s, i) => ({ id: s.id, description: `hundred ${i}`, custom_fields: {} }));
    const patchSmall = await statementsOf(() => t.api.patch(SITES).set(t.auth).send(two));
    const patchLarge = await statementsOf(() => t.api.patch(SITES).set(t.auth).send(hundred));
    expect([patchSmall.status, patchLarge.status]).toEqual([200, 200]);
    expect(patchLarge.n).toBe(patchSmall.n);
    const after = (await t.api.get(`${SITES}?slug__isw=set-large-&limit=100`).set(t.auth)).body.results as Array<{ id: number; description: string }>;
    for (const s of after) expect(s.description).toBe(`hundred ${made.findIndex((m) => m.id === s.id)}`);
  });

  test('tags of 100 objects are written in one statement per join table; a change replaces each element\'s own tags only', async () => {
    const [red, blue] = [
      (await t.api.post('/api/extras/tags/').set(t.auth).send({ name: 'Set red', slug: 'set-red' })).body as { id: number },
      (await t.api.post('/api/extras/tags/').set(t.auth).send({ name: 'Set blue', slug: 'set-blue' })).body as { id: number },
    ];
    const joinWrites = () => t.queries.log.filter((q) => /^(INSERT INTO|DELETE FROM) "dcim_site_tags"/.test(q.trim())).length;
    const body = sites(100, 'tagged').map((s, i) => ({ ...s, tags: i % 2 ? [red.id, blue.id] : [red.id] }));
    t.queries.reset();
    const res = await t.api.post(SITES).set(t.auth).send(body);
    expect(res.status).toBe(201);
    expect(joinWrites()).toBe(1);
    const made = res.body as Array<{ id: number; tags: Array<{ slug: string }>; last_updated: string }>;
    expect(made.map((s) => s.tags.map((x) => x.slug).sort())).toEqual(body.map((_, i) => (i % 2 ? ['set-blue', 'set-red'] : ['set-red'])));
    expect(norm(made)).toEqual(await reread(SITES, made.map((s) => s.id)));
    // Tags alone change on the first two; the third changes only its description and keeps its tags.
    t.queries.reset();
    const patched = await t.api.patch(SITES).set(t.auth).send([
      { id: made[0]!.id, tags: [blue.id] },
      { id: made[1]!.id, tags: [] },
      { id: made[2]!.id, description: 'no tag change' },
    ]);
    expect(patched.status).toBe(200);
    expect(joinWrites()).toBeLessThanOrEqual(2);
    const after = patched.body as Array<{ tags: Array<{ slug: string }>; last_updated: string; description: string }>;
    expect(after.map((s) => s.tags.map((x) => x.slug))).toEqual([['set-blue'], [], ['set-red']]);
    expect(after[2]!.description).toBe('no tag change');
    // A change of tags alone is a change of the object, as one object's write: last_updated moves and the log shows the new tags.
    expect(Date.parse(after[0]!.last_updated)).toBeGreaterThan(Date.parse(made[0]!.last_updated));
    const log = (await t.api.get(`/api/extras/object-changes/?changed_object_type=dcim.site&changed_object_id=${made[0]!.id}&action=update`).set(t.auth)).body.results as Array<{ postchange_data: { tags: string[] } }>;
    expect(log).toHaveLength(1);
    expect(log[0]!.postchange_data.tags).toEqual(['Set blue']);
  });

  test('created in request order, each element with its own columns and values', async () => {
    const body = [
      { name: 'Set order b', slug: 'set-order-b', status: 'planned' },
      { name: 'Set order a', slug: 'set-order-a', description: 'only this one' },
      { name: 'Set order c', slug: 'set-order-c', status: 'retired', facility: 'F9' },
    ];
    const res = await t.api.post(SITES).set(t.auth).send(body);
    expect(res.status).toBe(201);
    expect(res.body.map((s: { slug: string }) => s.slug)).toEqual(['set-order-b', 'set-order-a', 'set-order-c']);
    expect(res.body.map((s: { status: { value: string } }) => s.status.value)).toEqual(['planned', 'active', 'retired']);
    expect(res.body.map((s: { description: string }) => s.description)).toEqual(['', 'only this one', '']);
    expect(res.body[2].facility).toBe('F9');
    expect(norm(res.body)).toEqual(await reread(SITES, res.body.map((s: { id: number }) => s.id)));
  });

  test('a unique clash in the middle of 50: 400 with the error at its position, and nothing created', async () => {
    const before = await countOf('dcim.site');
    const body = sites(50, 'clash');
    body[31] = { ...body[31]!, slug: body[4]!.slug };
    const res = await t.api.post(SITES).set(t.auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toHaveLength(50);
    expect(res.body[31]).toEqual({ slug: ['site with this slug already exists.'] });
    expect(res.body.filter((e: object) => Object.keys(e).length)).toHaveLength(1);
    expect(await countOf('dcim.site')).toBe(before);
  });

  test('a definition check broken by one element of many: 400 aligned, and nothing created', async () => {
    const group = await t.api.post('/api/ipam/vlan-groups/').set(t.auth).send({ name: 'Set group', slug: 'set-group', min_vid: 100, max_vid: 199 });
    expect(group.status).toBe(201);
    const before = await countOf('ipam.vlan');
    const vlans = [150, 160, 250, 170].map((vid) => ({ vid, name: `set vlan ${vid}`, group: group.body.id }));
    const res = await t.api.post('/api/ipam/vlans/').set(t.auth).send(vlans);
    expect(res.status).toBe(400);
    expect(res.body).toEqual([{}, {}, { vid: ['VID must be between 100 and 199 for VLANs in group Set group'] }, {}]);
    expect(await countOf('ipam.vlan')).toBe(before);
  });
});
