/**
 * Representations (spec 2.1, 2.2, 4.6): the full key set of each first object type against NetBox 3.7's
 * reference, the rendering rules every field kind follows, nested and brief forms, and how addresses
 * and prefixes are normalised.
 */
import { readNetboxReference } from '../reference/netbox-reference-file';
import { startTestApp, type TestApp } from '../support/test-app';

type Json = Record<string, unknown>;

let t: TestApp;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

interface ReferenceEndpoint {
  fields: Record<string, unknown>;
  brief?: string[];
}
interface Reference {
  endpoints: Record<string, ReferenceEndpoint>;
  nested: Record<string, string[] | null>;
}
/** NetBox 3.7.8's condensed OpenAPI, in the repository (tests/reference/). */
const REFERENCE = readNetboxReference<Reference>();

/** Where Patchbay's full representation differs from NetBox 3.7.8's, and why. Nothing else may differ. */
interface Differences {
  /** Reference fields that relate to an object type not defined yet: field -> that type's label. */
  notYet: Record<string, string>;
  /** Other reference fields not served, with the reason (reported as known gaps). */
  missing: Record<string, string>;
  /** Fields served that the reference lacks, with the reason. */
  extra: Record<string, string>;
}

const NONE: Differences = { notYet: {}, missing: {}, extra: {} };

interface Case {
  /** `<app>/<path>` as in the reference */
  endpoint: string;
  /**
   * The exact keys of the full representation today. A `notYet` field joins them once its object type
   * is defined (see fullKeys), so the catalog can grow without this list going stale silently.
   */
  full: string[];
  /** The exact keys (in order) of the brief representation. */
  brief: string[];
  differences: Differences;
}

const CASES: Record<string, Case> = {
  site: {
    endpoint: 'dcim/sites',
    full: ['id', 'url', 'display', 'name', 'slug', 'status', 'region', 'tenant', 'facility', 'time_zone', 'description', 'physical_address', 'shipping_address', 'latitude', 'longitude', 'comments', 'tags', 'custom_fields', 'prefix_count', 'vlan_count', 'created', 'last_updated'],
    brief: ['id', 'url', 'display', 'name', 'slug'],
    differences: {
      ...NONE,
      notYet: {
        asns: 'ipam.asn',
        group: 'dcim.sitegroup',
        circuit_count: 'circuits.circuittermination',
        device_count: 'dcim.device',
        rack_count: 'dcim.rack',
        virtualmachine_count: 'virtualization.virtualmachine',
      },
    },
  },
  prefix: {
    endpoint: 'ipam/prefixes',
    full: ['id', 'url', 'display', 'family', 'prefix', 'site', 'vrf', 'tenant', 'vlan', 'status', 'role', 'is_pool', 'mark_utilized', 'description', 'comments', 'tags', 'custom_fields', 'children', '_depth', 'created', 'last_updated'],
    brief: ['id', 'url', 'family', 'prefix'],
    differences: NONE,
  },
  ipaddress: {
    endpoint: 'ipam/ip-addresses',
    full: ['id', 'url', 'display', 'family', 'address', 'vrf', 'tenant', 'status', 'role', 'assigned_object_type', 'assigned_object_id', 'assigned_object', 'nat_inside', 'nat_outside', 'dns_name', 'description', 'comments', 'tags', 'custom_fields', 'created', 'last_updated'],
    brief: ['id', 'url', 'display', 'family', 'address'],
    differences: NONE,
  },
  vlan: {
    endpoint: 'ipam/vlans',
    full: ['id', 'url', 'display', 'site', 'group', 'vid', 'name', 'tenant', 'status', 'role', 'description', 'comments', 'tags', 'custom_fields', 'display_name', 'prefix_count', 'created', 'last_updated'],
    brief: ['id', 'url', 'display', 'vid', 'name', 'display_name'],
    differences: {
      ...NONE,
      notYet: { l2vpn_termination: 'vpn.l2vpntermination' },
      extra: { display_name: 'spec 2.2: VLAN carries display_name beside display' },
    },
  },
  tenant: {
    endpoint: 'tenancy/tenants',
    full: ['id', 'url', 'display', 'name', 'slug', 'group', 'description', 'comments', 'tags', 'custom_fields', 'site_count', 'prefix_count', 'ipaddress_count', 'vlan_count', 'vrf_count', 'created', 'last_updated'],
    brief: ['id', 'url', 'display', 'name', 'slug'],
    differences: {
      ...NONE,
      notYet: {
        circuit_count: 'circuits.circuit',
        cluster_count: 'virtualization.cluster',
        device_count: 'dcim.device',
        rack_count: 'dcim.rack',
        virtualmachine_count: 'virtualization.virtualmachine',
      },
    },
  },
  region: {
    endpoint: 'dcim/regions',
    full: ['id', 'url', 'display', '_depth', 'parent', 'name', 'slug', 'description', 'tags', 'custom_fields', 'site_count', 'created', 'last_updated'],
    brief: ['id', 'url', 'display', 'name', 'slug', '_depth'],
    differences: NONE,
  },
  tag: {
    endpoint: 'extras/tags',
    full: ['id', 'url', 'display', 'name', 'slug', 'color', 'description', 'object_types', 'tagged_items', 'created', 'last_updated'],
    brief: ['id', 'url', 'display', 'name', 'slug', 'color'],
    differences: NONE,
  },
  token: {
    endpoint: 'users/tokens',
    full: ['id', 'url', 'display', 'user', 'created', 'expires', 'last_used', 'key', 'write_enabled', 'description', 'allowed_ips', 'last_updated'],
    brief: ['id', 'url', 'display', 'key', 'write_enabled'],
    differences: {
      ...NONE,
      extra: {
        key: 'spec 5.6: the token representation carries key (NetBox with ALLOW_TOKEN_RETRIEVAL)',
        allowed_ips: 'spec 5.10: tokens carry allowed client networks (NetBox 3.7 TokenSerializer.allowed_ips)',
        last_updated: 'spec 5.12: last-use tracking updates the token\'s last_updated',
      },
    },
  },
  user: {
    endpoint: 'users/users',
    full: ['id', 'url', 'display', 'username', 'first_name', 'last_name', 'email', 'is_staff', 'is_active', 'is_superuser', 'date_joined', 'last_login', 'groups'],
    brief: ['id', 'url', 'display', 'username'],
    differences: {
      ...NONE,
      // KNOWN DIFFERENCE (reported): read-only, harmless to clients, but not in NetBox 3.7's UserSerializer.
      extra: { is_superuser: 'KNOWN DIFFERENCE: read-only superuser flag shown' },
    },
  },
};

/** The keys a full representation must have: the list written above, plus fields whose object type now exists. */
function fullKeys(c: Case): string[] {
  const arrived = Object.entries(c.differences.notYet).filter(([, label]) => t.registry.models.has(label)).map(([field]) => field);
  return [...c.full, ...arrived].sort();
}

/** Objects created in beforeAll, by name. */
const obj: Record<string, Json> = {};

async function create(path: string, body: Json): Promise<Json> {
  const res = await t.api.post(path).set(t.auth).send(body);
  if (res.status !== 201) throw new Error(`POST ${path} ${JSON.stringify(body)} -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Json;
}

async function get(path: string): Promise<Json> {
  const res = await t.api.get(path).set(t.auth);
  if (res.status !== 200) throw new Error(`GET ${path} -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Json;
}

function pathOf(url: unknown): string {
  return new URL(String(url)).pathname;
}

/** The value with every absolute API URL reduced to its path: supertest serves each request on a new port. */
function norm(v: unknown): unknown {
  if (typeof v === 'string') return /^https?:\/\/[^/]+\/api\//.test(v) ? pathOf(v) : v;
  if (Array.isArray(v)) return v.map(norm);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, norm(x)]));
  return v;
}

function keys(v: unknown): string[] {
  return Object.keys(v as object);
}

beforeAll(async () => {
  // Cases create the same addresses and prefixes again (each shows one representation): unique IP space is off.
  t = await startTestApp({ env: { ENFORCE_GLOBAL_UNIQUE: 'false' } });
  obj.tag = await create('/api/extras/tags/', { name: 'Alpha', slug: 'alpha', color: 'ff0000' });
  obj.tenantGroup = await create('/api/tenancy/tenant-groups/', { name: 'Customers', slug: 'customers' });
  obj.tenant = await create('/api/tenancy/tenants/', { name: 'Acme', slug: 'acme', group: obj.tenantGroup.id });
  obj.bareTenant = await create('/api/tenancy/tenants/', { name: 'Bare', slug: 'bare' });
  obj.parentRegion = await create('/api/dcim/regions/', { name: 'Europe', slug: 'europe' });
  obj.region = await create('/api/dcim/regions/', { name: 'France', slug: 'france', parent: obj.parentRegion.id });
  obj.site = await create('/api/dcim/sites/', { name: 'Paris 1', slug: 'par1', status: 'planned', region: obj.region.id, tenant: obj.tenant.id, tags: [obj.tag.id] });
  obj.bareSite = await create('/api/dcim/sites/', { name: 'Bare Site', slug: 'bare-site' });
  obj.vrf = await create('/api/ipam/vrfs/', { name: 'Blue', rd: '65000:1' });
  obj.role = await create('/api/ipam/roles/', { name: 'Access', slug: 'access' });
  obj.vlanGroup = await create('/api/ipam/vlan-groups/', { name: 'Core', slug: 'core' });
  obj.vlan = await create('/api/ipam/vlans/', { vid: 10, name: 'users', group: obj.vlanGroup.id, site: obj.site.id, tenant: obj.tenant.id, role: obj.role.id, status: 'reserved', tags: [obj.tag.id] });
  obj.bareVlan = await create('/api/ipam/vlans/', { vid: 20, name: 'guests' });
  obj.prefix = await create('/api/ipam/prefixes/', { prefix: '10.0.0.5/24', site: obj.site.id, vrf: obj.vrf.id, tenant: obj.tenant.id, vlan: obj.vlan.id, role: obj.role.id, status: 'container', is_pool: true, tags: [obj.tag.id] });
  obj.barePrefix = await create('/api/ipam/prefixes/', { prefix: '2001:DB8:0:0:1::/48' });
  obj.insideIp = await create('/api/ipam/ip-addresses/', { address: '10.0.0.5/24', vrf: obj.vrf.id });
  obj.ip = await create('/api/ipam/ip-addresses/', { address: '192.0.2.1/24', tenant: obj.tenant.id, role: 'loopback', status: 'reserved', nat_inside: obj.insideIp.id, dns_name: 'gw.example.com', tags: [obj.tag.id] });
  obj.bareIp = await create('/api/ipam/ip-addresses/', { address: '2001:DB8::1/64' });
  obj.user = await create('/api/users/users/', { username: 'alice', password: 'correct horse battery' });
  obj.token = await create('/api/users/tokens/', { user: obj.user.id, description: 'ci' });
});
afterAll(async () => {
  await t.close();
});

const SAMPLE: Record<string, string> = {
  site: 'site', prefix: 'prefix', ipaddress: 'ip', vlan: 'vlan', tenant: 'tenant', region: 'region', tag: 'tag', token: 'token', user: 'user',
};

describe.each(Object.entries(CASES))('%s', (name, c) => {
  const sample = () => obj[SAMPLE[name]!]!;

  test('the full representation has exactly the expected keys', async () => {
    const body = await get(pathOf(sample().url));
    expect(keys(body).sort()).toEqual(fullKeys(c));
  });

  test('the expected keys are NetBox 3.7\'s, but for the documented differences', () => {
    const ref = REFERENCE.endpoints[c.endpoint];
    expect(ref).toBeDefined();
    const referenceKeys = Object.keys(ref!.fields);
    const { notYet, missing, extra } = c.differences;
    const derived = [...referenceKeys.filter((k) => !(k in notYet) && !(k in missing)), ...Object.keys(extra)];
    expect(derived.sort()).toEqual([...c.full].sort());
    // Each documented difference is a real one (no stale entries).
    for (const k of [...Object.keys(notYet), ...Object.keys(missing)]) expect(referenceKeys).toContain(k);
    for (const k of Object.keys(extra)) expect(referenceKeys).not.toContain(k);
  });

  test('a field left out for a missing object type is left out only while that type is missing', () => {
    for (const [field, label] of Object.entries(c.differences.notYet)) {
      expect({ field, listed: c.full.includes(field) }).toEqual({ field, listed: false });
      expect({ field, served: fullKeys(c).includes(field) }).toEqual({ field, served: t.registry.models.has(label) });
    }
  });

  test('id, url (absolute, its own detail URL) and display', async () => {
    const body = await get(pathOf(sample().url));
    expect(typeof body.id).toBe('number');
    expect(body.url).toEqual(expect.stringMatching(new RegExp(`^https?://[^/]+/api/${c.endpoint}/${String(body.id)}/$`)));
    expect(typeof body.display).toBe('string');
    expect((body.display as string).length).toBeGreaterThan(0);
  });

  test('brief=1 gives exactly the brief fields, on detail and on list', async () => {
    const detail = await get(`${pathOf(sample().url)}?brief=1`);
    expect(keys(detail)).toEqual(c.brief);
    const list = await get(`/api/${c.endpoint}/?brief=1`);
    const results = list.results as Json[];
    expect(results.length).toBeGreaterThan(0);
    for (const r of results) expect(keys(r)).toEqual(c.brief);
    const full = await get(pathOf(sample().url));
    for (const k of c.brief) expect(norm(detail[k])).toEqual(norm(k === 'family' ? (full.family as Json).value : full[k]));
  });

  test('the brief form agrees with NetBox\'s brief / nested fields, but for the documented differences', () => {
    const ref = REFERENCE.endpoints[c.endpoint]!;
    const nestedName = { site: 'NestedSite', prefix: 'NestedPrefix', ipaddress: 'NestedIPAddress', vlan: 'NestedVLAN', tenant: 'NestedTenant', region: 'NestedRegion', tag: 'NestedTag', token: 'NestedToken', user: 'NestedUser' }[name]!;
    const refBrief = ref.brief ?? REFERENCE.nested[nestedName] ?? null;
    const documented: Record<string, string[]> = {
      // Spec 2.2 / 4.6: the prefix brief is exactly id, url, family (integer), prefix.
      prefix: ['id', 'url', 'family', 'prefix'],
      // Spec 2.1 rule 3 / issue: VLAN carries display_name beside display.
      vlan: ['id', 'url', 'display', 'vid', 'name', 'display_name'],
      // NetBox 3.7 NestedTokenSerializer (the condensed reference has no brief for tokens).
      token: ['id', 'url', 'display', 'key', 'write_enabled'],
    };
    expect(c.brief).toEqual(documented[name] ?? refBrief);
  });
});

describe('field rendering rules', () => {
  test('choice fields are {value, label}', async () => {
    const site = await get(pathOf(obj.site!.url));
    expect(site.status).toEqual({ value: 'planned', label: 'Planned' });
    const prefix = await get(pathOf(obj.prefix!.url));
    expect(prefix.status).toEqual({ value: 'container', label: 'Container' });
    expect(prefix.family).toEqual({ value: 4, label: 'IPv4' });
    const ip = await get(pathOf(obj.ip!.url));
    expect(ip.status).toEqual({ value: 'reserved', label: 'Reserved' });
    expect(ip.role).toEqual({ value: 'loopback', label: 'Loopback' });
    expect(ip.family).toEqual({ value: 4, label: 'IPv4' });
    const vlan = await get(pathOf(obj.vlan!.url));
    expect(vlan.status).toEqual({ value: 'reserved', label: 'Reserved' });
  });

  test('an unset choice is null', async () => {
    const ip = await get(pathOf(obj.bareIp!.url));
    expect(ip.role).toBeNull();
  });

  test('unset text is "" and unset relations are null; tags [] and custom_fields {}', async () => {
    const site = await get(pathOf(obj.bareSite!.url));
    for (const k of ['facility', 'description', 'physical_address', 'shipping_address', 'comments']) expect({ k, v: site[k] }).toEqual({ k, v: '' });
    expect(site.region).toBeNull();
    expect(site.tenant).toBeNull();
    expect(site.latitude).toBeNull();
    expect(site.tags).toEqual([]);
    expect(site.custom_fields).toEqual({});

    const prefix = await get(pathOf(obj.barePrefix!.url));
    for (const k of ['site', 'vrf', 'tenant', 'vlan', 'role']) expect({ k, v: prefix[k] }).toEqual({ k, v: null });
    expect(prefix.description).toBe('');
    expect(prefix.tags).toEqual([]);
    expect(prefix.custom_fields).toEqual({});

    const ip = await get(pathOf(obj.bareIp!.url));
    for (const k of ['vrf', 'tenant', 'nat_inside', 'assigned_object_type', 'assigned_object_id', 'assigned_object']) expect({ k, v: ip[k] }).toEqual({ k, v: null });
    expect(ip.dns_name).toBe('');
    expect(ip.description).toBe('');

    const vlan = await get(pathOf(obj.bareVlan!.url));
    for (const k of ['site', 'group', 'tenant', 'role']) expect({ k, v: vlan[k] }).toEqual({ k, v: null });

    const tenant = await get(pathOf(obj.bareTenant!.url));
    expect(tenant.group).toBeNull();
    expect(tenant.comments).toBe('');

    const region = await get(pathOf(obj.parentRegion!.url));
    expect(region.parent).toBeNull();
  });

  test.each(['site', 'prefix', 'ip', 'vlan', 'tenant', 'region', 'tag'])('%s: created is a date, last_updated ISO 8601 UTC with microseconds', async (name) => {
    const body = await get(pathOf(obj[name]!.url));
    expect(body.created).toEqual(expect.stringMatching(DATE));
    expect(body.last_updated).toEqual(expect.stringMatching(TIMESTAMP));
    expect(String(body.last_updated).slice(0, 10)).toBe(body.created);
  });

  test('token: created and last_updated are ISO 8601 UTC timestamps with microseconds (spec 5.6)', async () => {
    const token = await get(pathOf(obj.token!.url));
    expect(token.created).toEqual(expect.stringMatching(TIMESTAMP));
    expect(token.last_updated).toEqual(expect.stringMatching(TIMESTAMP));
    expect(token.expires).toBeNull();
    expect(token.last_used).toBeNull();
    expect(token.key).toEqual(expect.stringMatching(/^[0-9a-f]{40}$/));
    expect(token.write_enabled).toBe(true);
    expect(token.description).toBe('ci');
    expect(token.allowed_ips).toEqual([]);
  });

  test('user: the password is never shown; date_joined is a timestamp', async () => {
    const user = await get(pathOf(obj.user!.url));
    expect(user).not.toHaveProperty('password');
    expect(user.date_joined).toEqual(expect.stringMatching(TIMESTAMP));
    expect(user.last_login).toBeNull();
    expect(user.display).toBe('alice');
  });

  test('VLAN carries display_name beside display', async () => {
    const vlan = await get(pathOf(obj.vlan!.url));
    expect(vlan.display).toBe('users (10)');
    expect(vlan.display_name).toBe(vlan.display);
    const brief = await get(`${pathOf(obj.vlan!.url)}?brief=1`);
    expect(norm(brief)).toEqual({ id: vlan.id, url: pathOf(vlan.url), display: 'users (10)', vid: 10, name: 'users', display_name: 'users (10)' });
  });

  test('prefix brief is exactly id, url, family (integer), prefix', async () => {
    const brief = await get(`${pathOf(obj.prefix!.url)}?brief=1`);
    expect(norm(brief)).toEqual({ id: obj.prefix!.id, url: pathOf(obj.prefix!.url), family: 4, prefix: '10.0.0.0/24' });
    const list = await get('/api/ipam/prefixes/?brief=1');
    const v6 = (list.results as Json[]).find((r) => r.id === obj.barePrefix!.id);
    expect(norm(v6)).toEqual({ id: obj.barePrefix!.id, url: pathOf(obj.barePrefix!.url), family: 6, prefix: '2001:db8::/48' });
  });

  test('ip-address brief is exactly id, url, display, family (integer), address', async () => {
    const brief = await get(`${pathOf(obj.bareIp!.url)}?brief=1`);
    expect(norm(brief)).toEqual({ id: obj.bareIp!.id, url: pathOf(obj.bareIp!.url), display: '2001:db8::1/64', family: 6, address: '2001:db8::1/64' });
  });
});

describe('nested related objects: id, url, display and the target\'s brief fields', () => {
  function expectNested(value: unknown, target: Json, fields: string[]): void {
    expect(keys(value)).toEqual(['id', 'url', 'display', ...fields]);
    const v = value as Json;
    expect(v.id).toBe(target.id);
    expect(v.url).toEqual(expect.stringMatching(/^https?:\/\/[^/]+\/api\//));
    expect(pathOf(v.url)).toBe(pathOf(target.url));
    expect(v.display).toBe(target.display);
  }

  test('site: region (with _depth) and tenant', async () => {
    const site = await get(pathOf(obj.site!.url));
    expectNested(site.region, obj.region!, ['name', 'slug', '_depth']);
    expect(site.region).toMatchObject({ name: 'France', slug: 'france', _depth: 1 });
    expectNested(site.tenant, obj.tenant!, ['name', 'slug']);
    expect(site.tenant).toMatchObject({ name: 'Acme', slug: 'acme' });
  });

  test('site: tags nested as id, url, display, name, slug, color', async () => {
    const site = await get(pathOf(obj.site!.url));
    expect(site.tags).toHaveLength(1);
    expectNested((site.tags as unknown[])[0], obj.tag!, ['name', 'slug', 'color']);
    expect((site.tags as unknown[])[0]).toMatchObject({ name: 'Alpha', slug: 'alpha', color: 'ff0000' });
  });

  test('prefix: site, vrf, tenant, vlan (with display_name), role', async () => {
    const prefix = await get(pathOf(obj.prefix!.url));
    expectNested(prefix.site, obj.site!, ['name', 'slug']);
    expectNested(prefix.vrf, obj.vrf!, ['name', 'rd']);
    expect(prefix.vrf).toMatchObject({ display: 'Blue (65000:1)', name: 'Blue', rd: '65000:1' });
    expectNested(prefix.tenant, obj.tenant!, ['name', 'slug']);
    expectNested(prefix.vlan, obj.vlan!, ['vid', 'name', 'display_name']);
    expect(prefix.vlan).toMatchObject({ vid: 10, name: 'users', display_name: 'users (10)' });
    expectNested(prefix.role, obj.role!, ['name', 'slug']);
    expect(prefix.is_pool).toBe(true);
  });

  test('ip-address: nat_inside nested with family as an integer', async () => {
    const ip = await get(pathOf(obj.ip!.url));
    expectNested(ip.nat_inside, obj.insideIp!, ['family', 'address']);
    expect(ip.nat_inside).toMatchObject({ family: 4, address: '10.0.0.5/24' });
    expectNested(ip.tenant, obj.tenant!, ['name', 'slug']);
    const inside = await get(pathOf(obj.insideIp!.url));
    expectNested(inside.vrf, obj.vrf!, ['name', 'rd']);
  });

  test('vlan: group, site, tenant, role', async () => {
    const vlan = await get(pathOf(obj.vlan!.url));
    expectNested(vlan.group, obj.vlanGroup!, ['name', 'slug']);
    expectNested(vlan.site, obj.site!, ['name', 'slug']);
    expectNested(vlan.tenant, obj.tenant!, ['name', 'slug']);
    expectNested(vlan.role, obj.role!, ['name', 'slug']);
  });

  test('tenant: group (a tree, so with _depth); region: parent', async () => {
    const tenant = await get(pathOf(obj.tenant!.url));
    expectNested(tenant.group, obj.tenantGroup!, ['name', 'slug', '_depth']);
    expect(tenant.group).toMatchObject({ _depth: 0 });
    const region = await get(pathOf(obj.region!.url));
    expectNested(region.parent, obj.parentRegion!, ['name', 'slug', '_depth']);
    expect(region._depth).toBe(1);
    expect(region.parent).toMatchObject({ _depth: 0 });
  });

  test('token: user nested as id, url, display, username', async () => {
    const token = await get(pathOf(obj.token!.url));
    expectNested(token.user, obj.user!, ['username']);
    expect(token.user).toMatchObject({ username: 'alice' });
  });

  test('nested objects are the same in a list as in a detail', async () => {
    const list = await get('/api/ipam/prefixes/');
    const fromList = (list.results as Json[]).find((r) => r.id === obj.prefix!.id);
    const detail = await get(pathOf(obj.prefix!.url));
    expect(norm(fromList)).toEqual(norm(detail));
  });
});

describe('counts', () => {
  test('count fields count the related objects', async () => {
    const site = await get(pathOf(obj.site!.url));
    expect(site.prefix_count).toBe(1);
    expect(site.vlan_count).toBe(1);
    const tenant = await get(pathOf(obj.tenant!.url));
    expect(tenant).toMatchObject({ site_count: 1, prefix_count: 1, ipaddress_count: 1, vlan_count: 1, vrf_count: 0 });
    const region = await get(pathOf(obj.region!.url));
    expect(region.site_count).toBe(1);
    const vlan = await get(pathOf(obj.vlan!.url));
    expect(vlan.prefix_count).toBe(1);
    const bare = await get(pathOf(obj.bareTenant!.url));
    expect(bare).toMatchObject({ site_count: 0, prefix_count: 0, ipaddress_count: 0, vlan_count: 0, vrf_count: 0 });
  });
});

describe('prefix defaults', () => {
  test('status active, role null, is_pool false when omitted', async () => {
    const p = obj.barePrefix!;
    expect(p.status).toEqual({ value: 'active', label: 'Active' });
    expect(p.role).toBeNull();
    expect(p.is_pool).toBe(false);
    expect(p.mark_utilized).toBe(false);
  });
});

describe('addresses and prefixes are normalised, family computed', () => {
  test.each([
    ['10.0.0.5/24', '10.0.0.0/24', 4],
    ['10.1.2.3/8', '10.0.0.0/8', 4],
    ['192.0.2.77/32', '192.0.2.77/32', 4],
    ['2001:DB8:0:0:1::/48', '2001:db8::/48', 6],
    ['2001:0db8:0000:0000:0000:0000:0000:0001/64', '2001:db8::/64', 6],
  ])('prefix %s is stored as %s (family %i)', async (input, expected, family) => {
    const res = await t.api.post('/api/ipam/prefixes/').set(t.auth).send({ prefix: input });
    expect(res.status).toBe(201);
    expect(res.body.prefix).toBe(expected);
    expect(res.body.display).toBe(expected);
    expect(res.body.family).toEqual({ value: family, label: `IPv${family}` });
    const again = await get(pathOf(res.body.url));
    expect(again.prefix).toBe(expected);
  });

  test.each([
    ['2001:DB8::1/64', '2001:db8::1/64', 6],
    ['10.0.0.5/24', '10.0.0.5/24', 4],
    ['10.9.8.7', '10.9.8.7/32', 4],
    ['2001:DB8::5', '2001:db8::5/128', 6],
    ['2001:0db8:0:0:0:0:0:0001/128', '2001:db8::1/128', 6],
  ])('address %s is stored as %s (family %i)', async (input, expected, family) => {
    const res = await t.api.post('/api/ipam/ip-addresses/').set(t.auth).send({ address: input });
    expect(res.status).toBe(201);
    expect(res.body.address).toBe(expected);
    expect(res.body.display).toBe(expected);
    expect(res.body.family).toEqual({ value: family, label: `IPv${family}` });
    const again = await get(pathOf(res.body.url));
    expect(again.address).toBe(expected);
  });

  test('PATCH normalises too and recomputes the family', async () => {
    const created = await create('/api/ipam/ip-addresses/', { address: '10.20.30.40/24' });
    const res = await t.api.patch(pathOf(created.url)).set(t.auth).send({ address: '2001:DB8::A/64' });
    expect(res.status).toBe(200);
    expect(res.body.address).toBe('2001:db8::a/64');
    expect(res.body.family).toEqual({ value: 6, label: 'IPv6' });
  });

  test.each(['not-an-ip', 'fe80::1%eth0/64', 'fe80::1%eth0', '10.0.0.256/24', '10.0.0.1/33', '10.0.0.1/', '10.0.0/24', '2001:db8::g/64', '2001:db8::1/129', '1.2.3.4/24/5', ' ', '10.0.0.1/-1'])(
    'invalid address %p is a 400 naming address',
    async (input) => {
      const res = await t.api.post('/api/ipam/ip-addresses/').set(t.auth).send({ address: input });
      expect(res.status).toBe(400);
      expect(keys(res.body)).toEqual(['address']);
      expect(res.body.address).toEqual([expect.any(String)]);
    },
  );

  test.each(['not-a-prefix', '10.0.0.0/33', '300.0.0.0/8', '2001:db8::/200', 'fe80::1%eth0/64', '10.0.0.0/8x'])(
    'invalid prefix %p is a 400 naming prefix',
    async (input) => {
      const res = await t.api.post('/api/ipam/prefixes/').set(t.auth).send({ prefix: input });
      expect(res.status).toBe(400);
      expect(keys(res.body)).toEqual(['prefix']);
      expect(res.body.prefix).toEqual([expect.any(String)]);
    },
  );

  test('a wrongly typed address or prefix is a 400 naming the field', async () => {
    const a = await t.api.post('/api/ipam/ip-addresses/').set(t.auth).send({ address: 167772161 });
    expect(a.status).toBe(400);
    expect(keys(a.body)).toEqual(['address']);
    const p = await t.api.post('/api/ipam/prefixes/').set(t.auth).send({ prefix: ['10.0.0.0/8'] });
    expect(p.status).toBe(400);
    expect(keys(p.body)).toEqual(['prefix']);
  });

  test('an invalid address in PATCH is a 400 and changes nothing', async () => {
    const created = await create('/api/ipam/ip-addresses/', { address: '10.40.0.1/24' });
    const res = await t.api.patch(pathOf(created.url)).set(t.auth).send({ address: '10.40.0.999/24' });
    expect(res.status).toBe(400);
    expect(keys(res.body)).toEqual(['address']);
    expect((await get(pathOf(created.url))).address).toBe('10.40.0.1/24');
  });

  test('an invalid address inside relation attributes is a 400 naming the relation', async () => {
    const res = await t.api.post('/api/ipam/ip-addresses/').set(t.auth).send({ address: '10.50.0.1/24', nat_inside: { address: 'bogus' } });
    expect(res.status).toBe(400);
    expect(keys(res.body)).toEqual(['nat_inside']);
  });
});
