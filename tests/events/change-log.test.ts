/**
 * The change log (extras.objectchange) over real HTTP: written by the database's triggers in the
 * write's transaction, for single and bulk writes and for what the database does itself (cascades,
 * set null), naming the caller and the response's X-Request-ID; read-only, with NetBox's filters.
 */
import { startTestApp, type TestApp } from '../support/test-app';
import { pruneChangeLog } from '../../engine/events/retention';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

type Change = Record<string, unknown> & { action: { value: string; label: string }; prechange_data: Record<string, unknown> | null; postchange_data: Record<string, unknown> | null };

async function changes(query: string): Promise<Change[]> {
  const res = await t.api.get(`/api/extras/object-changes/?${query}&limit=1000`).set(t.auth);
  if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
  return res.body.results as Change[];
}

describe('change log', () => {
  test('a create, an update and a delete of one object: NetBox\'s shape, the caller and the request id', async () => {
    const created = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'CL Site', slug: 'cl-site', description: 'first' });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    const rid = created.headers['x-request-id'] as string;
    const [c] = await changes(`request_id=${rid}`);
    expect(Object.keys(c!).sort()).toEqual(['action', 'changed_object', 'changed_object_id', 'changed_object_type', 'display', 'id', 'object_repr', 'postchange_data', 'prechange_data', 'request_id', 'time', 'url', 'user', 'user_name'].sort());
    expect(c).toMatchObject({ action: { value: 'create', label: 'Created' }, changed_object_type: 'dcim.site', changed_object_id: id, object_repr: 'CL Site', request_id: rid, prechange_data: null });
    expect((c!.user as { username: string }).username).toBe(c!.user_name);
    expect((c!.changed_object as { id: number; display: string })).toMatchObject({ id, display: 'CL Site' });
    expect(c!.postchange_data).toMatchObject({ name: 'CL Site', slug: 'cl-site', description: 'first', custom_fields: {}, tags: [] });
    expect(c!.display).toBe(`dcim | site CL Site created by ${String(c!.user_name)}`);

    const patched = await t.api.patch(`/api/dcim/sites/${id}/`).set(t.auth).send({ description: 'second' });
    expect(patched.status).toBe(200);
    const [u] = await changes(`request_id=${patched.headers['x-request-id'] as string}`);
    expect(u).toMatchObject({ action: { value: 'update', label: 'Updated' }, changed_object_id: id });
    expect(u!.prechange_data!.description).toBe('first');
    expect(u!.postchange_data!.description).toBe('second');

    const deleted = await t.api.delete(`/api/dcim/sites/${id}/`).set(t.auth);
    expect(deleted.status).toBe(204);
    const [d] = await changes(`request_id=${deleted.headers['x-request-id'] as string}`);
    expect(d).toMatchObject({ action: { value: 'delete', label: 'Deleted' }, changed_object_id: id, postchange_data: null, changed_object: null });
    expect(d!.prechange_data!.description).toBe('second');

    const all = await changes(`changed_object_type=dcim.site&changed_object_id=${id}`);
    expect(all.map((x) => x.action.value)).toEqual(['delete', 'update', 'create']);
  });

  test('a bulk create and a bulk update log one row per object under the one request id', async () => {
    const body = Array.from({ length: 20 }, (_, i) => ({ name: `bulk-cl-${i}`, slug: `bulk-cl-${i}` }));
    const res = await t.api.post('/api/dcim/sites/').set(t.auth).send(body);
    expect(res.status).toBe(201);
    const ids = (res.body as Array<{ id: number }>).map((s) => s.id);
    const created = await changes(`request_id=${res.headers['x-request-id'] as string}`);
    expect(created.map((c) => c.changed_object_id).sort((a, b) => Number(a) - Number(b))).toEqual(ids);
    expect(created.every((c) => c.action.value === 'create')).toBe(true);
    const patch = await t.api.patch('/api/dcim/sites/').set(t.auth).send(ids.map((id) => ({ id, description: 'bulk' })));
    expect(patch.status).toBe(200);
    const updated = await changes(`request_id=${patch.headers['x-request-id'] as string}&action=update`);
    expect(updated).toHaveLength(20);
    expect(updated.every((c) => c.postchange_data!.description === 'bulk' && c.prechange_data!.description === '')).toBe(true);
  });

  test('a cascaded delete and a set-null are logged in the request that caused them', async () => {
    const region = (await t.api.post('/api/dcim/regions/').set(t.auth).send({ name: 'CL Parent', slug: 'cl-parent' })).body as { id: number };
    const child = (await t.api.post('/api/dcim/regions/').set(t.auth).send({ name: 'CL Child', slug: 'cl-child', parent: region.id })).body as { id: number };
    const site = (await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'CL Regional', slug: 'cl-regional', region: child.id })).body as { id: number };
    const del = await t.api.delete(`/api/dcim/regions/${region.id}/`).set(t.auth);
    expect(del.status).toBe(204);
    const rows = await changes(`request_id=${del.headers['x-request-id'] as string}`);
    expect(rows.map((r) => `${String(r.changed_object_type)}:${String(r.changed_object_id)}:${r.action.value}`).sort()).toEqual(
      [`dcim.region:${child.id}:delete`, `dcim.region:${region.id}:delete`, `dcim.site:${site.id}:update`].sort(),
    );
    const siteRow = rows.find((r) => r.changed_object_type === 'dcim.site')!;
    expect(siteRow.prechange_data!.region).toBe(child.id);
    expect(siteRow.postchange_data!.region).toBeNull();
    expect(rows.every((r) => r.user_name === siteRow.user_name && r.request_id === del.headers['x-request-id'])).toBe(true);
  });

  test('tags show in the data of the change that set them', async () => {
    const tag = (await t.api.post('/api/extras/tags/').set(t.auth).send({ name: 'CL Tag', slug: 'cl-tag' })).body as { id: number };
    const res = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'CL Tagged', slug: 'cl-tagged', tags: [tag.id] });
    expect(res.status).toBe(201);
    const rows = await changes(`request_id=${res.headers['x-request-id'] as string}`);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.postchange_data!.tags).toEqual(['CL Tag']);
  });

  test('a bulk write failing on its last element logs nothing', async () => {
    const before = (await t.api.get('/api/extras/object-changes/?limit=1').set(t.auth)).body.count as number;
    const body = [...Array.from({ length: 5 }, (_, i) => ({ name: `rb-${i}`, slug: `rb-${i}` })), { name: 'rb-0', slug: 'rb-0' }];
    const res = await t.api.post('/api/dcim/sites/').set(t.auth).send(body);
    expect(res.status).toBe(400);
    expect((await t.api.get('/api/extras/object-changes/?limit=1').set(t.auth)).body.count).toBe(before);
    expect(await changes(`request_id=${res.headers['x-request-id'] as string}`)).toEqual([]);
  });

  test('read-only, and NetBox\'s filters', async () => {
    expect((await t.api.post('/api/extras/object-changes/').set(t.auth).send({})).status).toBe(405);
    const res = await t.api.post('/api/tenancy/tenant-groups/').set(t.auth).send({ name: 'CL Group', slug: 'cl-group' });
    const id = res.body.id as number;
    const me = (await changes(`changed_object_type=tenancy.tenantgroup&changed_object_id=${id}`))[0]!;
    const user = me.user as { id: number; username: string };
    expect((await changes(`user_id=${user.id}&changed_object_id=${id}&changed_object_type=tenancy.tenantgroup`))).toHaveLength(1);
    expect((await changes(`user=${user.username}&changed_object_id=${id}&changed_object_type=tenancy.tenantgroup`))).toHaveLength(1);
    expect((await changes(`user_name=${user.username}&q=CL%20Group`)).map((c) => c.changed_object_id)).toContain(id);
    expect(await changes(`action=delete&changed_object_type=tenancy.tenantgroup&changed_object_id=${id}`)).toEqual([]);
    const time = String(me.time);
    expect((await changes(`time__gte=${encodeURIComponent(time)}&changed_object_type=tenancy.tenantgroup`)).map((c) => c.changed_object_id)).toContain(id);
    expect((await changes(`time__lte=2000-01-01T00:00:00Z`))).toEqual([]);
    // NetBox's names for the two bounds, as pynetbox and the Ansible collection send them.
    expect((await changes(`time_after=${encodeURIComponent(time)}&changed_object_type=tenancy.tenantgroup`)).map((c) => c.changed_object_id)).toContain(id);
    expect((await changes(`time_before=2000-01-01T00:00:00Z`))).toEqual([]);
    expect((await changes(`time_before=${encodeURIComponent(time)}&changed_object_id=${id}&changed_object_type=tenancy.tenantgroup`))).toHaveLength(1);
    expect((await t.api.get('/api/extras/object-changes/?time_after=yesterday').set(t.auth)).status).toBe(400);
    const ct = (await t.api.get('/api/extras/content-types/?app_label=tenancy&model=tenantgroup').set(t.auth)).body.results[0] as { id: number };
    expect((await changes(`changed_object_type_id=${ct.id}&changed_object_id=${id}`))).toHaveLength(1);
    expect((await t.api.get('/api/extras/object-changes/?time__gte=yesterday').set(t.auth)).status).toBe(400);
  });

  test('journal entries: created_by is the caller, kind as NetBox, only the listed types, and the entry goes with its object', async () => {
    const site = (await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'CL Journal', slug: 'cl-journal' })).body as { id: number };
    const res = await t.api.post('/api/extras/journal-entries/').set(t.auth).send({ assigned_object_type: 'dcim.site', assigned_object_id: site.id, comments: 'checked' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body as object).sort()).toEqual(['assigned_object', 'assigned_object_id', 'assigned_object_type', 'comments', 'created', 'created_by', 'custom_fields', 'display', 'id', 'kind', 'last_updated', 'tags', 'url'].sort());
    expect(res.body).toMatchObject({ kind: { value: 'info', label: 'Info' }, comments: 'checked', assigned_object: { id: site.id } });
    const caller = ((await changes(`request_id=${res.headers['x-request-id'] as string}`))[0]!.user as { id: number }).id;
    expect(res.body.created_by).toBe(caller);
    const bad = await t.api.post('/api/extras/journal-entries/').set(t.auth).send({ assigned_object_type: 'users.token', assigned_object_id: 1, comments: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body).toHaveProperty('assigned_object_type');
    expect((await t.api.delete(`/api/dcim/sites/${site.id}/`).set(t.auth)).status).toBe(204);
    expect((await t.api.get(`/api/extras/journal-entries/${res.body.id as number}/`).set(t.auth)).status).toBe(404);
  });

  test('rows other engine code writes are logged too: a custom field\'s default given to every site', async () => {
    const site = (await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'CL Defaulted', slug: 'cl-defaulted' })).body as { id: number };
    const cf = await t.api.post('/api/extras/custom-fields/').set(t.auth).send({ name: 'cl_flavour', type: 'text', content_types: ['dcim.site'], default: 'plain' });
    expect(cf.status).toBe(201);
    const rows = await changes(`request_id=${cf.headers['x-request-id'] as string}`);
    expect(rows.some((r) => r.changed_object_type === 'extras.customfield' && r.action.value === 'create')).toBe(true);
    const mine = rows.find((r) => r.changed_object_type === 'dcim.site' && r.changed_object_id === site.id)!;
    expect(mine.action.value).toBe('update');
    expect((mine.prechange_data!.custom_fields as Record<string, unknown>).cl_flavour).toBeUndefined();
    expect((mine.postchange_data!.custom_fields as Record<string, unknown>).cl_flavour).toBe('plain');
    expect((await t.api.delete(`/api/extras/custom-fields/${cf.body.id as number}/`).set(t.auth)).status).toBe(204);
  });

  test('CHANGELOG_RETENTION: rows older than the days given are pruned, newer ones kept; 0 keeps all', async () => {
    const site = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'CL Old', slug: 'cl-old' });
    const rid = site.headers['x-request-id'] as string;
    await t.knex.raw(`UPDATE "extras_objectchange" SET "time" = now() - interval '100 days' WHERE "request_id" = ?`, [rid]);
    const total = (await t.api.get('/api/extras/object-changes/?limit=1').set(t.auth)).body.count as number;
    expect(await pruneChangeLog(t.knex, t.registry, 0)).toBe(0);
    expect(await changes(`request_id=${rid}`)).toHaveLength(1);
    expect(await pruneChangeLog(t.knex, t.registry, 90)).toBe(1);
    expect(await changes(`request_id=${rid}`)).toEqual([]);
    expect((await t.api.get('/api/extras/object-changes/?limit=1').set(t.auth)).body.count).toBe(total - 1);
  });
});
