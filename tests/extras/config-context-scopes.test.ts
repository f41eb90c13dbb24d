import path from 'node:path';
import { startTestApp, type TestApp } from '../support/test-app';
import { loadDefinitions, type LoadedDefinition } from '../../engine/definitions/load-definitions';
import { resolveRegistry } from '../../engine/definitions/resolve-registry';

/**
 * A config context assigned to scopes, as the netbox.netbox Ansible module writes it: the module resolves
 * every scope name to an id, then looks the context up by name with the scope lists added as query
 * parameters (`?name=...&sites=2&regions=1...&tags=<slug>`), parameters NetBox's filter set does not have
 * and so ignores. The scope filters are NetBox's singular ones (site, site_id, region...), and tags are
 * written and shown as slugs (NetBox's SlugRelatedField), which is what the module sends and compares.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestApp;
const ids: Record<string, number> = {};
let goldId = 0;

async function post(p: string, body: unknown): Promise<Json> {
  const res = await t.api.post(`/api/${p}/`).set(t.auth).send(body as object);
  expect([p, res.status, res.status === 201 ? '' : res.text]).toEqual([p, 201, '']);
  return res.body as Json;
}
async function list(query: string): Promise<string[]> {
  const res = await t.api.get(`/api/extras/config-contexts/?${query}`).set(t.auth);
  expect([query, res.status, res.status === 200 ? '' : res.text]).toEqual([query, 200, '']);
  return (res.body.results as Json[]).map((r) => r.name as string);
}

beforeAll(async () => {
  t = await startTestApp();
  const mf = await post('dcim/manufacturers', { name: 'M', slug: 'm' });
  const ct = await post('virtualization/cluster-types', { name: 'CT', slug: 'ct' });
  const made: Array<[string, string, Json]> = [
    ['regions', 'dcim/regions', { name: 'R', slug: 'r' }],
    ['site_groups', 'dcim/site-groups', { name: 'SG', slug: 'sg' }],
    ['sites', 'dcim/sites', { name: 'S', slug: 's' }],
    ['device_types', 'dcim/device-types', { manufacturer: mf.id, model: 'DT', slug: 'dt' }],
    ['roles', 'dcim/device-roles', { name: 'Role', slug: 'role' }],
    ['platforms', 'dcim/platforms', { name: 'P', slug: 'p' }],
    ['cluster_groups', 'virtualization/cluster-groups', { name: 'CG', slug: 'cg' }],
    ['clusters', 'virtualization/clusters', { name: 'C', type: ct.id }],
    ['tenant_groups', 'tenancy/tenant-groups', { name: 'TG', slug: 'tg' }],
    ['tenants', 'tenancy/tenants', { name: 'T', slug: 't' }],
  ];
  ids.cluster_types = ct.id;
  for (const [field, p, body] of made) ids[field] = (await post(p, body)).id;
  const site = await post('dcim/sites', { name: 'S2', slug: 's2' });
  ids.locations = (await post('dcim/locations', { name: 'L', slug: 'l', site: site.id })).id;
  goldId = (await post('extras/tags', { name: 'Gold Tag', slug: 'gold' })).id;
  await post('extras/tags', { name: 'Blue', slug: 'blue' });
});
afterAll(async () => {
  await t.close();
});

test('the module\'s lookup by name with every scope list as a parameter, its create, and its second lookup', async () => {
  const scopes = Object.entries(ids).map(([field, id]) => `${field}=${id}`).join('&');
  const lookup = `name=ctx&${scopes}&tags=gold`;
  // NetBox has no filters named after the fields: they are ignored, and the lookup is by name alone.
  expect(await list(lookup)).toEqual([]);
  const created = await post('extras/config-contexts', { name: 'ctx', data: { ntp: ['192.0.2.1'] }, ...Object.fromEntries(Object.entries(ids).map(([f, id]) => [f, [id]])), tags: ['gold'] });
  expect(created.tags).toEqual(['gold']);
  for (const [field, id] of Object.entries(ids)) expect([field, (created[field] as Json[]).map((o) => o.id)]).toEqual([field, [id]]);
  expect(await list(lookup)).toEqual(['ctx']);
  // The module's update: a PATCH of the same lists, tags again by slug.
  const res = await t.api.patch(`/api/extras/config-contexts/${created.id}/`).set(t.auth).send({ sites: [ids.sites], tags: ['blue', 'gold'] });
  expect([res.status, res.body.tags, res.body.sites.map((s: Json) => s.id)]).toEqual([200, ['blue', 'gold'], [ids.sites]]);
});

test('NetBox\'s singular scope filters, by slug and by id; tag matches any of its values', async () => {
  await post('extras/config-contexts', { name: 'other', data: {}, sites: [ids.sites], tags: ['blue'] });
  await post('extras/config-contexts', { name: 'none', data: {} });
  expect(await list('site=s&ordering=name')).toEqual(['ctx', 'other']);
  expect(await list(`site_id=${ids.sites}&ordering=name`)).toEqual(['ctx', 'other']);
  expect(await list('region=r')).toEqual(['ctx']);
  expect(await list(`region_id=${ids.regions}`)).toEqual(['ctx']);
  expect(await list('site_group=sg')).toEqual(['ctx']);
  expect(await list('location=l')).toEqual(['ctx']);
  expect(await list(`device_type_id=${ids.device_types}`)).toEqual(['ctx']);
  expect(await list('role=role')).toEqual(['ctx']);
  expect(await list('platform=p')).toEqual(['ctx']);
  expect(await list('cluster_type=ct')).toEqual(['ctx']);
  expect(await list('cluster_group=cg')).toEqual(['ctx']);
  expect(await list(`cluster_id=${ids.clusters}`)).toEqual(['ctx']);
  expect(await list('tenant_group=tg')).toEqual(['ctx']);
  expect(await list('tenant=t')).toEqual(['ctx']);
  expect(await list('tag=gold&tag=blue&ordering=name')).toEqual(['ctx', 'other']);
  expect(await list(`tag_id=${goldId}`)).toEqual(['ctx']);
  expect(await list('site__n=s')).toEqual(['none']);
  const bad = await t.api.get('/api/extras/config-contexts/?site=nowhere').set(t.auth);
  expect([bad.status, bad.body]).toEqual([400, { site: ['Select a valid choice. nowhere is not one of the available choices.'] }]);
});

test('tags are written by slug only: an unknown slug or an id is a 400 naming the field, and nothing is written', async () => {
  const unknown = await t.api.post('/api/extras/config-contexts/').set(t.auth).send({ name: 'x', data: {}, tags: ['gold', 'nope'] });
  expect([unknown.status, unknown.body]).toEqual([400, { tags: ['Object with slug=nope does not exist.'] }]);
  const byId = await t.api.post('/api/extras/config-contexts/').set(t.auth).send({ name: 'x', data: {}, tags: [1] });
  expect([byId.status, Object.keys(byId.body)]).toEqual([400, ['tags']]);
  expect(await list('name=x')).toEqual([]);
});

describe('the definition words', () => {
  const loaded = loadDefinitions(path.resolve(__dirname, '..', '..', 'schema'));
  function patched(change: (def: Record<string, any>) => void): LoadedDefinition[] { // eslint-disable-line @typescript-eslint/no-explicit-any
    const all = loaded.map((l) => ({ ...l, def: JSON.parse(JSON.stringify(l.def)) }));
    change(all.find((l) => `${l.def.app}.${l.def.model}` === 'extras.configcontext')!.def);
    return all;
  }
  test('filter_name and by_key are refused where they cannot work', () => {
    expect(() => resolveRegistry(patched((d) => (d.fields.weight.filter_name = 'w')))).toThrow(/config-context\.json:\/fields\/weight\/filter_name: filter_name is for m2m fields/);
    expect(() => resolveRegistry(patched((d) => (d.fields.regions.filter_name = 'site')))).toThrow(/:\/fields\/regions\/filter_name: "site" \(or its _id\) is the name of another filter of extras.configcontext/);
    expect(() => resolveRegistry(patched((d) => (d.fields.regions.filter_name = 'name')))).toThrow(/:\/fields\/regions\/filter_name: "name" \(or its _id\)/);
    expect(() => resolveRegistry(patched((d) => (d.fields.weight.by_key = true)))).toThrow(/:\/fields\/weight\/by_key: by_key is for m2m fields/);
  });
});
