import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Statement text is a pure function of (model, form, exclude set, filters shape, constraint shape): the
 * same request sends byte-identical SQL every time, so PostgreSQL plans a prepared statement once (the
 * statement's name is a hash of its text, engine/database/prepared-names.ts) instead of at every request.
 * Nothing in the text may come from a counter, a clock or a random name, and no value from the query string
 * or from a permission's constraints may be pasted in: those are bound parameters.
 *
 * The statements are those the server sends, as the database handle's 'query' listeners see them (the hook
 * the query-count tests use), for a superuser and for a caller restricted by relational constraints.
 */

let t: TestApp;
let constrained: { Authorization: string };
let constrainedOther: { Authorization: string };
const ids: Record<string, number> = {};

/** Values no SQL the engine writes could hold by chance: if one shows in statement text, it was pasted in. */
const MARK = 'zq7marker';

async function create(path: string, body: Record<string, unknown>): Promise<number> {
  const res = await t.api.post(path).set(t.auth).send(body);
  expect([path, res.status]).toEqual([path, 201]);
  return res.body.id as number;
}

/** A user restricted by relational constraints on every type read below; `group` and `site` are the constraint values. */
async function constrainedUser(name: string, groups: string[], site: string): Promise<{ Authorization: string }> {
  const key = await t.makeToken({ username: name });
  const user = await t.knex.raw(`SELECT "user_id" FROM "users_token" WHERE "key" = ?`, [key]);
  const userId = (user.rows as Array<{ user_id: number }>)[0]!.user_id;
  const grants: Array<[string, unknown]> = [
    ['dcim.site', { tenant__group__slug__in: groups }],
    ['dcim.device', { site__slug: site }],
    ['dcim.interface', { device__site__slug: site }],
    ['ipam.prefix', [{ site__slug: site }, { tenant__group__slug__in: groups }]],
    ['ipam.ipaddress', { tenant__group__slug__in: groups }],
    ['tenancy.tenant', { group__slug__in: groups }],
  ];
  for (const [type, constraints] of grants) {
    const res = await t.api.post('/api/users/permissions/').set(t.auth).send({ name: `${name} ${type}`, object_types: [type], actions: ['view'], constraints, users: [userId] });
    expect([type, res.status]).toEqual([type, 201]);
  }
  return { Authorization: `Token ${key}` };
}

beforeAll(async () => {
  t = await startTestApp();
  ids.group = await create('/api/tenancy/tenant-groups/', { name: 'Group A', slug: 'group-a' });
  ids.otherGroup = await create('/api/tenancy/tenant-groups/', { name: 'Group B', slug: 'group-b' });
  ids.tenant = await create('/api/tenancy/tenants/', { name: 'Tenant A', slug: 'tenant-a', group: ids.group });
  ids.site = await create('/api/dcim/sites/', { name: 'Site X', slug: 'site-x', tenant: ids.tenant });
  ids.otherSite = await create('/api/dcim/sites/', { name: 'Site Y', slug: 'site-y' });
  const manufacturer = await create('/api/dcim/manufacturers/', { name: 'Maker', slug: 'maker' });
  const type = await create('/api/dcim/device-types/', { manufacturer, model: 'Box', slug: 'box' });
  const role = await create('/api/dcim/device-roles/', { name: 'Leaf', slug: 'leaf' });
  ids.device = await create('/api/dcim/devices/', { name: 'dev-1', device_type: type, role, site: ids.site, tenant: ids.tenant });
  ids.interface = await create('/api/dcim/interfaces/', { device: ids.device, name: 'eth0', type: '1000base-t' });
  ids.prefix = await create('/api/ipam/prefixes/', { prefix: '10.0.0.0/24', site: ids.site, tenant: ids.tenant });
  ids.address = await create('/api/ipam/ip-addresses/', { address: '10.0.0.1/24', tenant: ids.tenant, dns_name: 'host.example.com' });
  constrained = await constrainedUser('constrained', ['group-a', 'group-b'], 'site-x');
  constrainedOther = await constrainedUser('constrained-other', ['group-c', 'group-d'], 'site-y');
}, 120000);
afterAll(async () => {
  await t.close();
});

/**
 * The SQL text of every statement one GET sends but the token's use stamp: a statement of its own, of
 * constant text, sent at most once a minute per token by whichever request finds it due.
 */
async function statements(url: string, auth: { Authorization: string }, answers = [200]): Promise<{ texts: string[] }> {
  t.queries.reset();
  const res = await t.api.get(url).set(auth);
  expect([url, answers.includes(res.status)]).toEqual([url, true]);
  return { texts: t.queries.log.filter((s) => !s.startsWith('UPDATE "users_token" SET "last_used"')) };
}

/** Reads of several models and forms: lists, details, brief, exclude=, filters, ordering and q=. */
function urls(): string[] {
  return [
    '/api/dcim/sites/',
    '/api/dcim/sites/?brief=1',
    `/api/dcim/sites/${ids.site}/`,
    '/api/dcim/sites/?exclude=tags,custom_fields,comments',
    '/api/dcim/sites/?slug=site-x&status=active&ordering=-name&limit=5',
    '/api/dcim/devices/',
    '/api/dcim/devices/?exclude=config_context',
    `/api/dcim/devices/${ids.device}/`,
    '/api/dcim/devices/?site=site-x&role=leaf&ordering=name',
    '/api/dcim/interfaces/',
    '/api/dcim/interfaces/?brief=1&device_id=' + ids.device,
    `/api/dcim/interfaces/${ids.interface}/?exclude=link_peers,connected_endpoints`,
    '/api/ipam/prefixes/?within=10.0.0.0/8&ordering=-prefix',
    '/api/ipam/ip-addresses/?q=host&dns_name__ic=example',
    '/api/ipam/ip-addresses/?brief=1&parent=10.0.0.0/16',
    '/api/tenancy/tenants/?group=group-a',
  ];
}

const callers = (): Array<[string, { Authorization: string }]> => [
  ['superuser', t.auth],
  ['constrained', constrained],
];

test.each(['superuser', 'constrained'])('two identical requests of the %s caller send byte-identical statements', async (who) => {
  const auth = callers().find(([name]) => name === who)![1];
  for (const url of urls()) {
    await statements(url, auth); // the first may warm caches (credentials, compiled representations)
    const second = await statements(url, auth);
    const third = await statements(url, auth);
    expect([url, third.texts]).toEqual([url, second.texts]);
    expect([url, second.texts.length]).toEqual([url, 1]);
    // The constraints' values are bound too.
    for (const value of ['group-a', 'group-b', 'site-x']) expect([url, value, second.texts[0]!.includes(value)]).toEqual([url, value, false]);
  }
});

test('the same constraints with other values, for another user, send the same statement text', async () => {
  for (const url of urls()) {
    await statements(url, constrained);
    // The other user's constraints let them see none of the objects read by id.
    await statements(url, constrainedOther, [200, 404]);
    const mine = await statements(url, constrained);
    const theirs = await statements(url, constrainedOther, [200, 404]);
    expect([url, theirs.texts]).toEqual([url, mine.texts]);
  }
});

test('the same filters with other values send the same statement text, and the values only as parameters', async () => {
  const shapes: Array<(v: string) => string> = [
    (v) => `/api/dcim/sites/?slug=${v}&name__ic=${v}`,
    (v) => `/api/dcim/devices/?q=${v}&ordering=-name`,
    (v) => `/api/dcim/interfaces/?name=${v}&brief=1`,
    (v) => `/api/ipam/ip-addresses/?dns_name__ic=${v}&description__nic=${v}`,
    (v) => `/api/ipam/prefixes/?q=${v}`,
    (v) => `/api/tenancy/tenants/?slug__isw=${v}&exclude=comments`,
  ];
  for (const [who, auth] of callers()) {
    for (const shape of shapes) {
      await statements(shape(MARK), auth);
      const one = await statements(shape(MARK), auth);
      const other = await statements(shape(`${MARK}other`), auth);
      expect([who, shape(MARK), other.texts]).toEqual([who, shape(MARK), one.texts]);
      expect([who, shape(MARK), one.texts.some((s) => s.includes(MARK))]).toEqual([who, shape(MARK), false]);
    }
  }
});

test('filters named in another order, and exclude= fields in another order, send the same statement text', async () => {
  const pairs: Array<[string, string]> = [
    ['/api/dcim/sites/?status=active&slug=site-x', '/api/dcim/sites/?slug=site-x&status=active'],
    ['/api/dcim/devices/?exclude=config_context,comments', '/api/dcim/devices/?exclude=comments,config_context'],
    ['/api/dcim/sites/?exclude=tags,comments', '/api/dcim/sites/?exclude=comments&exclude=tags'],
    ['/api/dcim/sites/?exclude=comments,no_such_field', '/api/dcim/sites/?exclude=comments'],
  ];
  for (const [who, auth] of callers()) {
    for (const [a, b] of pairs) {
      await statements(a, auth);
      await statements(b, auth);
      expect([who, a, (await statements(b, auth)).texts]).toEqual([who, a, (await statements(a, auth)).texts]);
    }
  }
});

/** The SQL text of every statement one write sends (the token's use stamp aside, as for reads). */
async function writeStatements(send: () => Promise<{ status: number }>, answer: number): Promise<string[]> {
  t.queries.reset();
  const res = await send();
  expect(res.status).toBe(answer);
  return t.queries.log.filter((s) => !s.startsWith('UPDATE "users_token" SET "last_used"'));
}

test('writes of one shape with other values send the same statement text, without the values', async () => {
  const texts: string[][] = [];
  for (const n of [1, 2, 3]) {
    const value = `${MARK}${n}`;
    const made = await writeStatements(() => t.api.post('/api/dcim/sites/').set(t.auth).send({ name: value, slug: value, tenant: ids.tenant, description: value }), 201);
    const id = (await t.api.get(`/api/dcim/sites/?slug=${value}`).set(t.auth)).body.results[0].id as number;
    const changed = await writeStatements(() => t.api.patch(`/api/dcim/sites/${id}/`).set(t.auth).send({ description: `${value}x`, status: 'planned' }), 200);
    const many = await writeStatements(() => t.api.post('/api/ipam/vlans/').set(t.auth).send([{ vid: 100 + n, name: `${value}a` }, { vid: 200 + n, name: `${value}b` }]), 201);
    texts.push([...made, ...changed, ...many]);
    expect(texts[texts.length - 1]!.some((s) => s.includes(MARK))).toBe(false);
  }
  // The first may differ (credentials read again after the permission writes above); the others may not.
  expect(texts[2]).toEqual(texts[1]);
});

test('detail actions (available IPs and prefixes, a trace, a rack elevation) and a count-only list send identical text twice', async () => {
  const rack = await create('/api/dcim/racks/', { name: `${MARK}rack`, site: ids.site });
  for (const [who, auth] of callers()) {
    for (const url of [
      `/api/ipam/prefixes/${ids.prefix}/available-ips/?limit=3`,
      `/api/ipam/prefixes/${ids.prefix}/available-prefixes/`,
      `/api/dcim/interfaces/${ids.interface}/trace/`,
      `/api/dcim/racks/${rack}/elevation/?limit=5`,
      '/api/dcim/devices/?limit=0',
    ]) {
      const answers = who === 'constrained' ? [200, 403, 404] : [200];
      await statements(url, auth, answers);
      const second = await statements(url, auth, answers);
      const third = await statements(url, auth, answers);
      expect([who, url, third.texts]).toEqual([who, url, second.texts]);
    }
  }
});

test('two permissions granted in either order give their holder the same statement text', async () => {
  const holders: Array<{ Authorization: string }> = [];
  for (const [name, order] of [['first-order', [0, 1]], ['second-order', [1, 0]]] as const) {
    const key = await t.makeToken({ username: name });
    const user = await t.knex.raw(`SELECT "user_id" FROM "users_token" WHERE "key" = ?`, [key]);
    const userId = (user.rows as Array<{ user_id: number }>)[0]!.user_id;
    const grants = [{ region__slug: `${name}-r` }, { tenant__group__slug: `${name}-g` }];
    for (const i of order) {
      const res = await t.api.post('/api/users/permissions/').set(t.auth).send({ name: `${name} ${i}`, object_types: ['dcim.site'], actions: ['view'], constraints: grants[i], users: [userId] });
      expect(res.status).toBe(201);
    }
    holders.push({ Authorization: `Token ${key}` });
  }
  for (const url of ['/api/dcim/sites/', `/api/dcim/sites/?brief=1&slug=${MARK}`]) {
    await statements(url, holders[0]!);
    await statements(url, holders[1]!);
    expect([url, (await statements(url, holders[1]!)).texts]).toEqual([url, (await statements(url, holders[0]!)).texts]);
  }
});
