/**
 * The rest of NetBox 3.7's extras, users/config and the engine words behind them, over real HTTP:
 * choice sets and their /choices/, custom fields with choice sets, tags limited to object types,
 * custom links, export templates (?export=), saved filters (?filter=, ?filter_id=), bookmarks,
 * config templates (render/, render-config/), content types, the dashboard and user preferences.
 */
import { startTestApp, type TestApp } from '../support/test-app';

let t: TestApp;
let alice: { Authorization: string };
let bob: { Authorization: string };

beforeAll(async () => {
  t = await startTestApp();
  alice = { Authorization: `Token ${await t.makeToken({ username: 'alice' })}` };
  bob = { Authorization: `Token ${await t.makeToken({ username: 'bob' })}` };
});
afterAll(async () => {
  await t.close();
});

async function post(path: string, body: unknown, auth = t.auth) {
  return t.api.post(path).set(auth).send(body as object);
}
async function made(path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await post(path, body);
  if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${res.text}`);
  return res.body as Record<string, unknown>;
}
const pathOf = (url: unknown) => new URL(String(url)).pathname;

describe('custom field choice sets', () => {
  test('NetBox\'s representation, choices_count and brief form', async () => {
    const set = await made('/api/extras/custom-field-choice-sets/', { name: 'Colours', extra_choices: [['red', 'Red'], ['blue', 'Blue']], description: 'paint' });
    expect(Object.keys(set).sort()).toEqual(['base_choices', 'choices_count', 'created', 'description', 'display', 'extra_choices', 'id', 'last_updated', 'name', 'order_alphabetically', 'url'].sort());
    expect(set).toMatchObject({ display: 'Colours', name: 'Colours', base_choices: null, extra_choices: [['red', 'Red'], ['blue', 'Blue']], order_alphabetically: false, choices_count: 2, description: 'paint' });
    const brief = await t.api.get(`/api/extras/custom-field-choice-sets/${set.id as number}/?brief=1`).set(t.auth);
    expect(Object.keys(brief.body as object)).toEqual(['id', 'url', 'display', 'name', 'choices_count']);
  });

  test('/choices/ lists {id, display}, ordered as the set says, filtered by q and paginated', async () => {
    const set = await made('/api/extras/custom-field-choice-sets/', { name: 'Letters', order_alphabetically: true, extra_choices: [['c', 'Charlie'], ['a', 'Alpha'], ['b', 'Bravo']] });
    expect(set.extra_choices).toEqual([['a', 'Alpha'], ['b', 'Bravo'], ['c', 'Charlie']]);
    const url = `/api/extras/custom-field-choice-sets/${set.id as number}/choices/`;
    const all = await t.api.get(url).set(t.auth);
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ count: 3, next: null, previous: null, results: [{ id: 'a', display: 'Alpha' }, { id: 'b', display: 'Bravo' }, { id: 'c', display: 'Charlie' }] });
    const q = await t.api.get(`${url}?q=RAV`).set(t.auth);
    expect(q.body.results).toEqual([{ id: 'b', display: 'Bravo' }]);
    const page = await t.api.get(`${url}?limit=1&offset=1`).set(t.auth);
    expect(page.body.count).toBe(3);
    expect(page.body.results).toEqual([{ id: 'b', display: 'Bravo' }]);
    expect(page.body.next).toMatch(/limit=1&offset=2$/);
    expect(page.body.previous).toMatch(/limit=1&offset=0$/);
    expect((await t.api.get('/api/extras/custom-field-choice-sets/999999/choices/').set(t.auth)).status).toBe(404);
    expect((await t.api.get(url).set(alice)).status).toBe(403);
    expect((await t.api.post(url).set(t.auth).send({})).status).toBe(405);
  });

  test('a set needs choices; NetBox\'s predefined sets are not shipped, so base_choices is ignored', async () => {
    const empty = await post('/api/extras/custom-field-choice-sets/', { name: 'Empty', extra_choices: [] });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({ non_field_errors: ['Must define base or extra choices.'] });
    const base = await post('/api/extras/custom-field-choice-sets/', { name: 'Airports', base_choices: 'IATA', extra_choices: [] });
    expect(base.status).toBe(400);
    expect(base.body).toEqual({ non_field_errors: ['Must define base or extra choices.'] });
    const bad = await post('/api/extras/custom-field-choice-sets/', { name: 'Bad', extra_choices: [['only-one']] });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body as object)).toEqual(['extra_choices']);
  });

  test('select custom fields take a choice set; values are checked against it; the set is protected', async () => {
    const set = await made('/api/extras/custom-field-choice-sets/', { name: 'Tiers', extra_choices: [['gold', 'Gold'], ['silver', 'Silver']] });
    const noSet = await post('/api/extras/custom-fields/', { name: 'tier_missing', type: 'select', content_types: ['dcim.site'] });
    expect(noSet.status).toBe(400);
    expect(noSet.body).toEqual({ choice_set: ['Selection fields must specify a set of choices.'] });
    const textWithSet = await post('/api/extras/custom-fields/', { name: 'tier_text', type: 'text', content_types: ['dcim.site'], choice_set: set.id });
    expect(textWithSet.body).toEqual({ choice_set: ['Choices may be set only on selection fields.'] });
    const cf = await made('/api/extras/custom-fields/', { name: 'tier', type: 'select', content_types: ['dcim.site'], choice_set: set.id });
    expect(cf.choice_set).toMatchObject({ id: set.id, display: 'Tiers', name: 'Tiers', choices_count: 2 });
    expect(pathOf((cf.choice_set as { url: string }).url)).toBe(`/api/extras/custom-field-choice-sets/${set.id as number}/`);
    const ok = await post('/api/dcim/sites/', { name: 'Tier Site', slug: 'tier-site', custom_fields: { tier: 'gold' } });
    expect(ok.status).toBe(201);
    const wrong = await post('/api/dcim/sites/', { name: 'Tier Site 2', slug: 'tier-site-2', custom_fields: { tier: 'bronze' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ custom_fields: ["Invalid value for custom field 'tier': Invalid choice (bronze) for choice set Tiers."] });
    const filtered = await t.api.get(`/api/extras/custom-fields/?choice_set_id=${set.id as number}`).set(t.auth);
    expect(filtered.body.count).toBe(1);
    const del = await t.api.delete(`/api/extras/custom-field-choice-sets/${set.id as number}/`).set(t.auth);
    expect(del.status).toBe(409);
  });
});

describe('tags limited to object types', () => {
  test('a tag with object types is refused elsewhere, as NetBox refuses it', async () => {
    const tag = await made('/api/extras/tags/', { name: 'Prefixes only', slug: 'prefixes-only', object_types: ['ipam.prefix'] });
    const onPrefix = await post('/api/ipam/prefixes/', { prefix: '10.9.0.0/16', tags: [tag.id] });
    expect(onPrefix.status).toBe(201);
    const onSite = await post('/api/dcim/sites/', { name: 'Tagged', slug: 'tagged', tags: [{ slug: 'prefixes-only' }] });
    expect(onSite.status).toBe(400);
    expect(onSite.body).toEqual({ tags: ['Tag Prefixes only cannot be assigned to site objects.'] });
    const anywhere = await made('/api/extras/tags/', { name: 'Anywhere', slug: 'anywhere' });
    expect((await post('/api/dcim/sites/', { name: 'Tagged', slug: 'tagged', tags: [anywhere.id] })).status).toBe(201);
  });
});

describe('custom links', () => {
  test('stored and served as NetBox shows them', async () => {
    const link = await made('/api/extras/custom-links/', { name: 'Docs', content_types: ['dcim.site'], link_text: 'Docs for {{ object.name }}', link_url: 'https://docs.example.com/{{ object.slug }}' });
    expect(Object.keys(link).sort()).toEqual(['button_class', 'content_types', 'created', 'display', 'enabled', 'group_name', 'id', 'last_updated', 'link_text', 'link_url', 'name', 'new_window', 'url', 'weight'].sort());
    expect(link).toMatchObject({ display: 'Docs', button_class: 'outline-dark', enabled: true, weight: 100, new_window: false, group_name: '', content_types: ['dcim.site'] });
    const bad = await post('/api/extras/custom-links/', { name: 'Bad', content_types: ['nope.nothing'], link_text: 'x', link_url: 'y' });
    expect(bad.body).toEqual({ content_types: ['Invalid content type: nope.nothing'] });
  });
});

describe('export templates', () => {
  beforeAll(async () => {
    await made('/api/dcim/sites/', { name: 'Export A', slug: 'export-a', status: 'planned' });
    await made('/api/dcim/sites/', { name: 'Export B', slug: 'export-b' });
  });

  test('?export= renders the template over the filtered list, with NetBox\'s MIME type and file name', async () => {
    const et = await made('/api/extras/export-templates/', { name: 'csv', content_types: ['dcim.site'], template_code: 'name,status\n{% for s in queryset %}{{ s.name }},{{ s.status.value }}\n{% endfor %}', mime_type: 'text/csv', file_extension: 'csv' });
    expect(et).toMatchObject({ as_attachment: true, mime_type: 'text/csv', file_extension: 'csv' });
    const res = await t.api.get('/api/dcim/sites/?export=csv&slug__isw=export-').set(t.auth);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv');
    expect(res.headers['content-disposition']).toBe('attachment; filename="netbox_sites.csv"');
    expect(res.text).toBe('name,status\nExport A,planned\nExport B,active');
    const one = await t.api.get('/api/dcim/sites/?export=csv&slug=export-b').set(t.auth);
    expect(one.text).toBe('name,status\nExport B,active');
  });

  test('inline, with the default MIME type; unknown names are 404; a broken template is a 400', async () => {
    await made('/api/extras/export-templates/', { name: 'names', content_types: ['dcim.site'], template_code: '{{ queryset | length }}', as_attachment: false });
    const res = await t.api.get('/api/dcim/sites/?export=names&slug__isw=export-').set(t.auth);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['content-disposition']).toBeUndefined();
    expect(res.text).toBe('2');
    expect((await t.api.get('/api/dcim/sites/?export=nothing').set(t.auth)).status).toBe(404);
    expect((await t.api.get('/api/ipam/prefixes/?export=names').set(t.auth)).status).toBe(404);
    await made('/api/extras/export-templates/', { name: 'broken', content_types: ['dcim.site'], template_code: '{% for %}' });
    const broken = await t.api.get('/api/dcim/sites/?export=broken').set(t.auth);
    expect(broken.status).toBe(400);
    expect(broken.body.export[0]).toMatch(/^An error occurred while rendering the template \(line 1\): /);
    await made('/api/extras/export-templates/', { name: 'forever', content_types: ['dcim.site'], template_code: '{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}' });
    expect((await t.api.get('/api/dcim/sites/?export=forever').set(t.auth)).status).toBe(400);
  });

  test('the export shows only what the caller may see', async () => {
    await made('/api/extras/export-templates/', { name: 'count', content_types: ['dcim.site'], template_code: '{{ queryset | length }}' });
    expect((await t.api.get('/api/dcim/sites/?export=count').set(alice)).status).toBe(403);
  });
});

describe('saved filters', () => {
  test('?filter= and ?filter_id= apply the stored parameters; unknown or unusable ones are a 400', async () => {
    await made('/api/dcim/sites/', { name: 'Saved A', slug: 'saved-a', status: 'planned' });
    await made('/api/dcim/sites/', { name: 'Saved B', slug: 'saved-b', status: 'retired' });
    const sf = await made('/api/extras/saved-filters/', { name: 'Planned saved', slug: 'planned-saved', content_types: ['dcim.site'], parameters: { status: ['planned'], slug__isw: 'saved-' } });
    expect(Object.keys(sf).sort()).toEqual(['content_types', 'created', 'description', 'display', 'enabled', 'id', 'last_updated', 'name', 'parameters', 'shared', 'slug', 'url', 'user', 'weight'].sort());
    expect(sf).toMatchObject({ user: null, weight: 100, enabled: true, shared: true });
    const bySlug = await t.api.get('/api/dcim/sites/?filter=planned-saved').set(t.auth);
    expect(bySlug.status).toBe(200);
    expect(bySlug.body.results.map((s: { slug: string }) => s.slug)).toEqual(['saved-a']);
    const byId = await t.api.get(`/api/dcim/sites/?filter_id=${sf.id as number}&status=retired`).set(t.auth);
    // A value given both ways joins the others: status is planned OR retired.
    expect(byId.body.results.map((s: { slug: string }) => s.slug).sort()).toEqual(['saved-a', 'saved-b']);
    const unknown = await t.api.get('/api/dcim/sites/?filter=nothing').set(t.auth);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ filter: ['Select a valid choice. nothing is not one of the available choices.'] });
    expect((await t.api.get('/api/ipam/prefixes/?filter=planned-saved').set(t.auth)).status).toBe(400);
    const bad = await post('/api/extras/saved-filters/', { name: 'Bad', slug: 'bad', content_types: ['dcim.site'], parameters: ['status'] });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body as object)).toEqual(['parameters']);
  });

  test('a filter kept by its user and not shared is theirs alone; a disabled one applies nowhere', async () => {
    const me = await t.api.get('/api/users/users/?username=alice').set(t.auth);
    const aliceId = me.body.results[0].id as number;
    await made('/api/extras/saved-filters/', { name: 'Alice private', slug: 'alice-private', content_types: ['dcim.site'], parameters: { status: 'planned' }, shared: false, user: aliceId });
    await made('/api/extras/saved-filters/', { name: 'Disabled', slug: 'disabled', content_types: ['dcim.site'], parameters: { status: 'planned' }, enabled: false });
    expect((await t.api.get('/api/dcim/sites/?filter=alice-private').set(t.auth)).status).toBe(400);
    expect((await t.api.get('/api/dcim/sites/?filter=disabled').set(t.auth)).status).toBe(400);
  });

  test('a saved filter costs one statement besides the list\'s', async () => {
    await t.api.get('/api/dcim/sites/').set(t.auth);
    t.queries.reset();
    expect((await t.api.get('/api/dcim/sites/?status=planned&slug__isw=saved-').set(t.auth)).status).toBe(200);
    const plain = t.queries.count;
    t.queries.reset();
    expect((await t.api.get('/api/dcim/sites/?filter=planned-saved').set(t.auth)).status).toBe(200);
    expect(plain).toBe(1);
    expect(t.queries.count).toBe(2);
    expect(t.queries.log[0]).toMatch(/FROM "extras_savedfilter"/);
  });
});

describe('bookmarks', () => {
  test('each user sees and makes their own', async () => {
    const site = await made('/api/dcim/sites/', { name: 'Bookmarked', slug: 'bookmarked' });
    const mine = await post('/api/extras/bookmarks/', { object_type: 'dcim.site', object_id: site.id }, alice);
    expect(mine.status).toBe(201);
    // NetBox's fields: a bookmark has created (a timestamp) and no last_updated.
    expect(Object.keys(mine.body as object).sort()).toEqual(['created', 'display', 'id', 'object', 'object_id', 'object_type', 'url', 'user'].sort());
    expect(mine.body.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(mine.body).toMatchObject({ object_type: 'dcim.site', object_id: site.id, object: { id: site.id, name: 'Bookmarked' }, user: { username: 'alice' } });
    expect((await t.api.get('/api/extras/bookmarks/').set(alice)).body.count).toBe(1);
    expect((await t.api.get('/api/extras/bookmarks/').set(bob)).body.count).toBe(0);
    expect((await t.api.get(`/api/extras/bookmarks/${mine.body.id as number}/`).set(bob)).status).toBe(404);
    const again = await post('/api/extras/bookmarks/', { object_type: 'dcim.site', object_id: site.id }, alice);
    expect(again.status).toBe(400);
    const token = await post('/api/extras/bookmarks/', { object_type: 'users.token', object_id: 1 }, alice);
    expect(token.body).toEqual({ object_type: ['Invalid content type: users.token'] });
  });
});

describe('config templates', () => {
  test('render/ renders with the body as context: JSON, or text to Accept: text/plain', async () => {
    const tpl = await made('/api/extras/config-templates/', { name: 'Hello', template_code: 'hostname {{ name }}\n' });
    expect(Object.keys(tpl).sort()).toEqual(['created', 'description', 'display', 'environment_params', 'id', 'last_updated', 'name', 'tags', 'template_code', 'url'].sort());
    expect(tpl.environment_params).toEqual({});
    const url = `/api/extras/config-templates/${tpl.id as number}/render/`;
    const json = await t.api.post(url).set(t.auth).send({ name: 'r1' });
    expect(json.status).toBe(200);
    expect(json.body).toEqual({ configtemplate: { id: tpl.id, url: expect.stringMatching(/\/api\/extras\/config-templates\/\d+\/$/), display: 'Hello', name: 'Hello' }, content: 'hostname r1' });
    const text = await t.api.post(url).set(t.auth).set('Accept', 'text/plain').send({ name: 'r2' });
    expect(text.headers['content-type']).toMatch(/^text\/plain/);
    expect(text.text).toBe('hostname r2');
    expect((await t.api.get(url).set(t.auth)).status).toBe(405);
    expect((await t.api.post(url).set(alice).send({})).status).toBe(403);
    const bad = await made('/api/extras/config-templates/', { name: 'Bad', template_code: '{{ x.constructor.constructor("return process")() }}' });
    const escaped = await t.api.post(`/api/extras/config-templates/${bad.id as number}/render/`).set(t.auth).send({ x: 'a' });
    expect(escaped.status).toBe(400);
  });

  test('render-config/ uses the device\'s template, else its role\'s, with its config context and itself', async () => {
    const tpl = await made('/api/extras/config-templates/', { name: 'Device', template_code: '{{ device.name }} ntp={{ ntp }} extra={{ extra }}', environment_params: { trim_blocks: true } });
    const site = await made('/api/dcim/sites/', { name: 'Render Site', slug: 'render-site' });
    const maker = await made('/api/dcim/manufacturers/', { name: 'Render Maker', slug: 'render-maker' });
    const type = await made('/api/dcim/device-types/', { manufacturer: maker.id, model: 'R1', slug: 'r1' });
    const role = await made('/api/dcim/device-roles/', { name: 'Render Role', slug: 'render-role', config_template: tpl.id });
    expect(role.config_template).toMatchObject({ id: tpl.id, name: 'Device' });
    await made('/api/extras/config-contexts/', { name: 'NTP', data: { ntp: '10.0.0.1' } });
    const device = await made('/api/dcim/devices/', { name: 'r1.example', device_type: type.id, role: role.id, site: site.id });
    expect(device.config_template).toBeNull();
    const res = await t.api.post(`/api/dcim/devices/${device.id as number}/render-config/`).set(t.auth).send({ extra: 'yes' });
    expect(res.status).toBe(200);
    expect(res.body.content).toBe('r1.example ntp=10.0.0.1 extra=yes');
    expect(res.body.configtemplate.id).toBe(tpl.id);
    const bare = await made('/api/dcim/device-roles/', { name: 'Bare Role', slug: 'bare-role' });
    const other = await made('/api/dcim/devices/', { name: 'r2.example', device_type: type.id, role: bare.id, site: site.id });
    const none = await t.api.post(`/api/dcim/devices/${other.id as number}/render-config/`).set(t.auth).send({});
    expect(none.status).toBe(400);
    expect(none.body).toEqual({ error: 'No config template found for this device.' });
    expect((await t.api.delete(`/api/extras/config-templates/${tpl.id as number}/`).set(t.auth)).status).toBe(409);
  });
});

describe('content types', () => {
  test('one per type, NetBox\'s fields, readable by any user, read-only', async () => {
    const list = await t.api.get('/api/extras/content-types/?app_label=dcim&model=site').set(alice);
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(1);
    const ct = list.body.results[0] as Record<string, unknown>;
    expect(Object.keys(ct)).toEqual(['id', 'url', 'display', 'app_label', 'model']);
    expect(ct).toMatchObject({ display: 'dcim | site', app_label: 'dcim', model: 'site' });
    const all = await t.api.get('/api/extras/content-types/?limit=0').set(t.auth);
    expect(all.body.count).toBe(t.registry.models.size);
    expect((await t.api.post('/api/extras/content-types/').set(t.auth).send({ app_label: 'x', model: 'y' })).status).toBe(405);
    expect((await t.api.delete(`/api/extras/content-types/${ct.id as number}/`).set(t.auth)).status).toBe(405);
    expect((await t.api.get(`/api/extras/content-types/${ct.id as number}/`).set(alice)).body).toEqual({ ...ct, url: expect.stringMatching(new RegExp(`/api/extras/content-types/${ct.id as number}/$`)) });
    expect((await t.api.get('/api/extras/content-types/?q=prefix').set(t.auth)).body.results.map((c: { model: string }) => c.model)).toEqual(['prefix']);
  });
});

describe('the dashboard and user preferences', () => {
  test('/api/extras/dashboard/: each user\'s own layout and config', async () => {
    expect((await t.api.get('/api/extras/dashboard/').set(alice)).body).toEqual({ layout: null, config: null });
    const put = await t.api.patch('/api/extras/dashboard/').set(alice).send({ layout: [{ id: 'w1', x: 0, y: 0, w: 4, h: 3 }] });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ layout: [{ id: 'w1', x: 0, y: 0, w: 4, h: 3 }], config: {} });
    expect((await t.api.get('/api/extras/dashboard/').set(bob)).body).toEqual({ layout: null, config: null });
    expect((await t.api.delete('/api/extras/dashboard/').set(alice)).status).toBe(204);
    expect((await t.api.delete('/api/extras/dashboard/').set(alice)).status).toBe(404);
    expect((await t.api.get('/api/extras/dashboard/')).status).toBe(403);
    expect((await t.api.post('/api/extras/dashboard/').set(alice).send({})).status).toBe(405);
  });

  test('/api/users/config/: GET the caller\'s preferences, PATCH merges into them', async () => {
    expect((await t.api.get('/api/users/config/').set(alice)).body).toEqual({});
    await t.api.patch('/api/users/config/').set(alice).send({ tables: { SiteTable: { columns: ['name'] } }, ui: { colormode: 'dark' } });
    const merged = await t.api.patch('/api/users/config/').set(alice).send({ tables: { DeviceTable: { columns: ['name'] } } });
    expect(merged.status).toBe(200);
    expect(merged.body).toEqual({ tables: { SiteTable: { columns: ['name'] }, DeviceTable: { columns: ['name'] } }, ui: { colormode: 'dark' } });
    expect((await t.api.get('/api/users/config/').set(bob)).body).toEqual({});
    expect((await t.api.get('/api/users/config/')).status).toBe(403);
    expect((await t.api.patch('/api/users/config/').set(alice).send([1])).status).toBe(400);
    const root = await t.api.get('/api/users/').set(t.auth);
    expect(Object.keys(root.body as object)).toContain('config');
  });
});
