/**
 * The examples of the specification (section 4.4) and of the filtering issue, written by hand against
 * a small fixture whose expected results are worked out in the comments: status, region, tags,
 * group_id, vid and name lookups, MAC addresses, custom fields, ordering, the IPAM filters, q, and the
 * 400s for bad values.
 */
import { startTestApp, type TestApp } from '../support/test-app';
import { readDefinitions, type Model } from './support/definitions';
import { ObjectFactory, type Rep } from './support/object-factory';

const defs = readDefinitions();
const modelOf = (label: string): Model => defs.models.get(label)!;

let t: TestApp;
/** Makes objects of models the fixture does not spell out (devices, interfaces), with what they require. */
let factory: ObjectFactory;
/** Fixture objects by name -> id, and back. */
const id: Record<string, number> = {};
const nameOf = new Map<string, string>();

async function make(path: string, key: string, body: Record<string, unknown>): Promise<Rep> {
  const res = await t.api.post(path).set(t.auth).send(body);
  if (res.status !== 201) throw new Error(`${path} ${JSON.stringify(body)}: ${res.status} ${JSON.stringify(res.body)}`);
  id[key] = res.body.id;
  nameOf.set(`${path}${res.body.id}`, key);
  return res.body as Rep;
}

/** GET a list and return the fixture names of the results, in response order. */
async function names(path: string, query = ''): Promise<string[]> {
  const res = await t.api.get(`${path}?${query}${query ? '&' : ''}limit=1000`).set(t.auth);
  expect({ query, status: res.status }).toEqual({ query, status: 200 });
  return (res.body.results as Rep[]).map((r) => nameOf.get(`${path}${r.id}`) ?? `unknown:${r.id}`);
}

/** Same, as a sorted set (when order is not what is tested). */
async function set(path: string, query = ''): Promise<string[]> {
  return (await names(path, query)).sort();
}

async function status(path: string, query: string): Promise<{ status: number; body: Rep }> {
  const res = await t.api.get(`${path}?${query}`).set(t.auth);
  return { status: res.status, body: res.body as Rep };
}

const P = '/api/ipam/prefixes/';
const IP = '/api/ipam/ip-addresses/';
const VLAN = '/api/ipam/vlans/';
const SITE = '/api/dcim/sites/';

beforeAll(async () => {
  t = await startTestApp();
  factory = new ObjectFactory(t, defs);
  // Regions: europe > nl; us.
  await make('/api/dcim/regions/', 'europe', { name: 'Europe', slug: 'europe' });
  await make('/api/dcim/regions/', 'nl', { name: 'Netherlands', slug: 'nl', parent: id.europe });
  await make('/api/dcim/regions/', 'us', { name: 'United States', slug: 'us' });
  // Sites, created out of name order so that ordering by site name differs from ordering by id.
  await make(SITE, 'nyc', { name: 'New York', slug: 'nyc', region: id.us, status: 'planned' });
  await make(SITE, 'fra', { name: 'Frankfurt', slug: 'fra', region: id.europe });
  await make(SITE, 'lab', { name: 'Lab', slug: 'lab', description: 'test lab in the basement' });
  await make(SITE, 'ams', { name: 'Amsterdam', slug: 'ams', region: id.nl });
  await make('/api/ipam/vrfs/', 'red', { name: 'red', rd: '65000:1' });
  await make('/api/ipam/vrfs/', 'blue', { name: 'blue', rd: '65000:2' });
  for (const tag of ['alpha', 'beta', 'gamma']) await make('/api/extras/tags/', tag, { name: tag, slug: tag });
  const tags = (...slugs: string[]) => slugs.map((slug) => ({ slug }));
  await make(P, 'p1', { prefix: '10.0.0.0/8', status: 'container' });
  await make(P, 'p2', { prefix: '10.1.0.0/16', site: id.ams, tags: tags('alpha', 'beta'), description: 'Core block' });
  await make(P, 'p3', { prefix: '10.1.2.0/24', site: id.fra, tags: tags('alpha') });
  await make(P, 'p4', { prefix: '10.1.2.128/25', status: 'reserved', site: id.nyc, tags: tags('beta') });
  await make(P, 'p5', { prefix: '10.10.0.0/16', status: 'deprecated', site: id.lab, tags: tags('alpha', 'beta', 'gamma') });
  await make(P, 'p6', { prefix: '9.0.0.0/8' });
  await make(P, 'p7', { prefix: '2001:db8::/32', site: id.ams });
  await make(P, 'p8', { prefix: '2001:db8:1::/48', status: 'reserved', vrf: id.red });
  await make(P, 'p9', { prefix: '10.1.2.0/24', vrf: id.red });
  await make(P, 'p10', { prefix: '192.168.0.0/16', vrf: id.blue });
  await make(IP, 'a1', { address: '10.1.2.9/24' });
  await make(IP, 'a2', { address: '10.1.2.10/24' });
  await make(IP, 'a3', { address: '10.1.2.200/25', status: 'reserved' });
  await make(IP, 'a4', { address: '10.0.0.10/32' });
  await make(IP, 'a5', { address: '10.0.0.9/32' });
  await make(IP, 'a6', { address: '10.1.2.9/24', vrf: id.red });
  await make(IP, 'a7', { address: '2001:db8::1/64' });
  await make(IP, 'a8', { address: '192.168.1.1/16', vrf: id.blue });
  await make('/api/ipam/vlan-groups/', 'g1', { name: 'G1', slug: 'g1' });
  await make('/api/ipam/vlan-groups/', 'g2', { name: 'G2', slug: 'g2' });
  await make(VLAN, 'servers', { vid: 10, name: 'Servers', group: id.g1, site: id.ams });
  await make(VLAN, 'backup', { vid: 20, name: 'servers-backup', group: id.g1, status: 'reserved' });
  await make(VLAN, 'clients', { vid: 30, name: 'Clients', group: id.g2 });
  await make(VLAN, 'mgmt', { vid: 100, name: 'mgmt' });
  await make(VLAN, 'transit', { vid: 4094, name: 'Transit_Link', group: id.g2 });
  // Two prefixes on VLANs (made after the VLANs they name), so that vlan_vid has rows to tell apart.
  for (const [prefix, vlan] of [['p3', 'servers'], ['p4', 'backup']] as const) {
    const res = await t.api.patch(`${P}${id[prefix]}/`).set(t.auth).send({ vlan: id[vlan] });
    if (res.status !== 200) throw new Error(`${prefix} on VLAN ${vlan}: ${res.status} ${JSON.stringify(res.body)}`);
  }
});

afterAll(async () => {
  await t?.close();
});

const ALL_PREFIXES = ['p1', 'p10', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9'];
const ALL_VLANS = ['backup', 'clients', 'mgmt', 'servers', 'transit'];

describe('choice, relation and tag filters', () => {
  test('status: a value, repeated values (OR), __n', async () => {
    expect(await set(P, 'status=reserved')).toEqual(['p4', 'p8']);
    expect(await set(P, 'status=reserved&status=container')).toEqual(['p1', 'p4', 'p8']);
    expect(await set(P, 'status__n=active')).toEqual(['p1', 'p4', 'p5', 'p8']);
    expect(await set(SITE, 'status=planned')).toEqual(['nyc']);
  });

  test('region by slug includes child regions; region_id likewise; null and __n', async () => {
    expect(await set(SITE, 'region=europe')).toEqual(['ams', 'fra']);
    expect(await set(SITE, 'region=nl')).toEqual(['ams']);
    expect(await set(SITE, `region_id=${id.europe}`)).toEqual(['ams', 'fra']);
    expect(await set(SITE, `region_id=${id.nl}&region_id=${id.us}`)).toEqual(['ams', 'nyc']);
    expect(await set(SITE, 'region_id=null')).toEqual(['lab']);
    expect(await set(SITE, `region_id__n=${id.europe}`)).toEqual(['lab', 'nyc']);
    // Through the prefix's site (a declared path filter).
    expect(await set(P, 'region=europe')).toEqual(['p2', 'p3', 'p7']);
    expect(await set(P, `region_id=${id.nl}`)).toEqual(['p2', 'p7']);
    // NetBox's exclude(): prefixes without a site are kept by __n.
    expect(await set(P, `region_id__n=${id.europe}`)).toEqual(['p1', 'p10', 'p4', 'p5', 'p6', 'p8', 'p9']);
    // The tree's own parent filter is direct.
    const regions = await t.api.get(`/api/dcim/regions/?parent_id=${id.europe}`).set(t.auth);
    expect(regions.body.results.map((r: Rep) => r.slug)).toEqual(['nl']);
  });

  test('site by slug and site_id, AND across parameters, OR within one', async () => {
    expect(await set(P, 'site=ams')).toEqual(['p2', 'p7']);
    expect(await set(P, `site_id=${id.ams}&site_id=${id.nyc}`)).toEqual(['p2', 'p4', 'p7']);
    expect(await set(P, 'status=active&site=ams')).toEqual(['p2', 'p7']);
    expect(await set(P, 'status=active&status=reserved&site=ams&site=nyc')).toEqual(['p2', 'p4', 'p7']);
    expect(await set(P, 'status=reserved&site=ams')).toEqual([]);
    expect(await set(P, 'site_id=null&status=active')).toEqual(['p10', 'p6', 'p9']);
  });

  test('tag: one tag, repeated tags mean AND, tag__n', async () => {
    expect(await set(P, 'tag=alpha')).toEqual(['p2', 'p3', 'p5']);
    expect(await set(P, 'tag=alpha&tag=beta')).toEqual(['p2', 'p5']);
    expect(await set(P, 'tag=alpha&tag=beta&tag=gamma')).toEqual(['p5']);
    expect(await set(P, 'tag=beta&tag=gamma')).toEqual(['p5']);
    expect(await set(P, 'tag__n=alpha')).toEqual(['p1', 'p10', 'p4', 'p6', 'p7', 'p8', 'p9']);
    expect(await set(P, 'tag__n=alpha&tag__n=beta')).toEqual(['p1', 'p10', 'p6', 'p7', 'p8', 'p9']);
    expect(await set(P, 'tag=alpha&status=deprecated')).toEqual(['p5']);
  });

  test('group_id (VLANs by VLAN group), group by slug, null and __n', async () => {
    expect(await set(VLAN, `group_id=${id.g1}`)).toEqual(['backup', 'servers']);
    expect(await set(VLAN, `group_id=${id.g1}&group_id=${id.g2}`)).toEqual(['backup', 'clients', 'servers', 'transit']);
    expect(await set(VLAN, 'group=g2')).toEqual(['clients', 'transit']);
    expect(await set(VLAN, 'group_id=null')).toEqual(['mgmt']);
    expect(await set(VLAN, `group_id__n=${id.g1}`)).toEqual(['clients', 'mgmt', 'transit']);
  });
});

describe('lookups', () => {
  test('vid: exact, repeats, __gte, __lt, __lte, __gt, __n', async () => {
    expect(await set(VLAN, 'vid=10')).toEqual(['servers']);
    expect(await set(VLAN, 'vid=10&vid=30')).toEqual(['clients', 'servers']);
    expect(await set(VLAN, 'vid__gte=30')).toEqual(['clients', 'mgmt', 'transit']);
    expect(await set(VLAN, 'vid__lt=30')).toEqual(['backup', 'servers']);
    expect(await set(VLAN, 'vid__lte=30')).toEqual(['backup', 'clients', 'servers']);
    expect(await set(VLAN, 'vid__gt=100')).toEqual(['transit']);
    expect(await set(VLAN, 'vid__n=10')).toEqual(['backup', 'clients', 'mgmt', 'transit']);
    expect(await set(VLAN, 'vid__n=10&vid__n=20')).toEqual(['clients', 'mgmt', 'transit']);
    expect(await set(VLAN, 'vid__gte=20&vid__lte=100')).toEqual(['backup', 'clients', 'mgmt']);
    // A prefix's VLAN vid (declared through the path): p3 is on servers (10), p4 on backup (20).
    expect(await set(P, 'vlan_vid=10')).toEqual(['p3']);
    expect(await set(P, 'vlan_vid=10&vlan_vid=20')).toEqual(['p3', 'p4']);
    expect(await set(P, 'vlan_vid__gte=20')).toEqual(['p4']);
    expect(await set(P, 'vlan_vid=30')).toEqual([]);
    // A prefix without a VLAN has no vid: kept by __n, as NetBox's exclude() keeps it.
    expect(await set(P, 'vlan_vid__n=10')).toEqual(['p1', 'p10', 'p2', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9']);
  });

  test('name: exact is case-sensitive; ic, nic, isw, nisw, iew, niew, ie, nie, empty', async () => {
    expect(await set(VLAN, 'name=Servers')).toEqual(['servers']);
    expect(await set(VLAN, 'name=servers')).toEqual([]);
    expect(await set(VLAN, 'name=Servers&name=mgmt')).toEqual(['mgmt', 'servers']);
    expect(await set(VLAN, 'name__n=Servers')).toEqual(['backup', 'clients', 'mgmt', 'transit']);
    expect(await set(VLAN, 'name__ic=SERV')).toEqual(['backup', 'servers']);
    expect(await set(VLAN, 'name__nic=serv')).toEqual(['clients', 'mgmt', 'transit']);
    expect(await set(VLAN, 'name__isw=s')).toEqual(['backup', 'servers']);
    expect(await set(VLAN, 'name__nisw=S')).toEqual(['clients', 'mgmt', 'transit']);
    expect(await set(VLAN, 'name__iew=LINK')).toEqual(['transit']);
    expect(await set(VLAN, 'name__niew=s')).toEqual(['backup', 'mgmt', 'transit']);
    expect(await set(VLAN, 'name__ie=servers')).toEqual(['servers']);
    expect(await set(VLAN, 'name__nie=SERVERS')).toEqual(['backup', 'clients', 'mgmt', 'transit']);
    expect(await set(VLAN, 'name__empty=false')).toEqual(ALL_VLANS);
    expect(await set(VLAN, 'name__empty=true')).toEqual([]);
    expect(await set(VLAN, 'description__empty=true')).toEqual(ALL_VLANS);
    // LIKE wildcards in a value are literal characters.
    expect(await set(VLAN, 'name__ic=_')).toEqual(['transit']);
    expect(await set(VLAN, 'name__isw=%25')).toEqual([]);
    expect(await set(VLAN, 'name__ic=s%25b')).toEqual([]);
  });
});

describe('custom fields', () => {
  beforeAll(async () => {
    const cf = async (body: Record<string, unknown>) => make('/api/extras/custom-fields/', `cf_${body.name}`, { content_types: ['ipam.prefix'], ...body });
    await cf({ name: 'circuit_ref', type: 'text', filter_logic: 'loose' });
    await cf({ name: 'asset_tag', type: 'text', filter_logic: 'exact' });
    await cf({ name: 'hidden_note', type: 'text', filter_logic: 'disabled' });
    await cf({ name: 'capacity', type: 'integer' });
    await cf({ name: 'monitored', type: 'boolean' });
    await make('/api/extras/custom-field-choice-sets/', 'tiers', { name: 'Tiers', extra_choices: [['gold', 'Gold'], ['silver', 'Silver']] });
    await cf({ name: 'tier', type: 'select', choice_set: id.tiers });
    await cf({ name: 'site_only', type: 'text', content_types: ['dcim.site'] });
    const patch = async (key: string, values: Record<string, unknown>) => {
      const res = await t.api.patch(`${P}${id[key]}/`).set(t.auth).send({ custom_fields: values });
      expect({ status: res.status, body: res.status === 200 ? 'ok' : res.body }).toEqual({ status: 200, body: 'ok' });
    };
    await patch('p2', { circuit_ref: 'CID-Alpha-001', asset_tag: 'AT-100', hidden_note: 'secret', capacity: 10, monitored: true, tier: 'gold' });
    await patch('p3', { circuit_ref: 'cid-beta-002', asset_tag: 'AT-1000', capacity: 25, monitored: false, tier: 'silver' });
    await patch('p4', { circuit_ref: 'XYZ', asset_tag: 'at-100', capacity: 5 });
  });

  test('a loose text field matches a part, ignoring case', async () => {
    expect(await set(P, 'cf_circuit_ref=cid')).toEqual(['p2', 'p3']);
    expect(await set(P, 'cf_circuit_ref=ALPHA')).toEqual(['p2']);
    expect(await set(P, 'cf_circuit_ref=nothing')).toEqual([]);
  });

  test('an exact text field matches the whole value only', async () => {
    expect(await set(P, 'cf_asset_tag=AT-100')).toEqual(['p2']);
    expect(await set(P, 'cf_asset_tag=AT')).toEqual([]);
    expect(await set(P, 'cf_asset_tag=AT-100&cf_asset_tag=at-100')).toEqual(['p2', 'p4']);
    expect(await set(P, 'cf_asset_tag__ic=at-100')).toEqual(['p2', 'p3', 'p4']);
  });

  test('filter_logic disabled: the parameter is ignored', async () => {
    expect(await set(P, 'cf_hidden_note=no-such-value')).toEqual(ALL_PREFIXES);
    expect(await set(P, 'cf_hidden_note=secret')).toEqual(ALL_PREFIXES);
  });

  test('changing filter_logic changes the filter at once', async () => {
    const res = await t.api.patch(`/api/extras/custom-fields/${id.cf_asset_tag}/`).set(t.auth).send({ filter_logic: 'loose' });
    expect(res.status).toBe(200);
    expect(await set(P, 'cf_asset_tag=at-100')).toEqual(['p2', 'p3', 'p4']);
    await t.api.patch(`/api/extras/custom-fields/${id.cf_asset_tag}/`).set(t.auth).send({ filter_logic: 'exact' });
    expect(await set(P, 'cf_asset_tag=at-100')).toEqual(['p4']);
  });

  test('integer, boolean and select fields compare by their type', async () => {
    expect(await set(P, 'cf_capacity=10')).toEqual(['p2']);
    expect(await set(P, 'cf_capacity__gte=10')).toEqual(['p2', 'p3']);
    expect(await set(P, 'cf_capacity__lt=10')).toEqual(['p4']);
    expect(await set(P, 'cf_capacity=5&cf_capacity=25')).toEqual(['p3', 'p4']);
    expect(await set(P, 'cf_monitored=true')).toEqual(['p2']);
    expect(await set(P, 'cf_monitored=false')).toEqual(['p3']);
    expect(await set(P, 'cf_tier=gold')).toEqual(['p2']);
    expect(await set(P, 'cf_tier=gol')).toEqual([]);
    expect(await set(P, 'cf_capacity__empty=true')).toEqual(['p1', 'p10', 'p5', 'p6', 'p7', 'p8', 'p9']);
  });

  test('mixed with built-in filters; a field defined for another type is not a filter here (it would match nothing)', async () => {
    expect(await set(P, 'cf_circuit_ref=cid&site=ams')).toEqual(['p2']);
    expect(await set(P, 'cf_circuit_ref=cid&status=active&cf_capacity__gt=20')).toEqual(['p3']);
    expect(await set(P, 'cf_site_only=x')).toEqual(ALL_PREFIXES);
  });

  test('an invalid value for a typed custom field is a 400 naming the parameter', async () => {
    for (const [param, value] of [['cf_capacity', 'abc'], ['cf_capacity__gte', 'ten'], ['cf_monitored', 'maybe']]) {
      const res = await status(P, `${param}=${value}`);
      expect({ param, status: res.status, keys: Object.keys(res.body) }).toEqual({ param, status: 400, keys: [param] });
    }
  });
});

describe('IPAM filters', () => {
  test('prefix within, within_include, contains', async () => {
    expect(await set(P, 'within=10.0.0.0/8')).toEqual(['p2', 'p3', 'p4', 'p5', 'p9']);
    expect(await set(P, 'within=10.1.0.0/16')).toEqual(['p3', 'p4', 'p9']);
    expect(await set(P, 'within_include=10.1.0.0/16')).toEqual(['p2', 'p3', 'p4', 'p9']);
    expect(await set(P, 'within_include=10.1.2.128/25')).toEqual(['p4']);
    expect(await set(P, 'contains=10.1.2.130')).toEqual(['p1', 'p2', 'p3', 'p4', 'p9']);
    expect(await set(P, 'contains=10.1.2.0/24')).toEqual(['p1', 'p2', 'p3', 'p9']);
    expect(await set(P, 'contains=2001:db8:1::5')).toEqual(['p7', 'p8']);
    expect(await set(P, 'within=10.1.0.0/16&vrf_id=null')).toEqual(['p3', 'p4']);
  });

  test('prefix mask_length (and __gte, __lte) and family', async () => {
    expect(await set(P, 'mask_length=24')).toEqual(['p3', 'p9']);
    expect(await set(P, 'mask_length=24&mask_length=8')).toEqual(['p1', 'p3', 'p6', 'p9']);
    expect(await set(P, 'mask_length__gte=24&family=4')).toEqual(['p3', 'p4', 'p9']);
    expect(await set(P, 'mask_length__gte=24')).toEqual(['p3', 'p4', 'p7', 'p8', 'p9']);
    expect(await set(P, 'mask_length__lte=8')).toEqual(['p1', 'p6']);
    expect(await set(P, 'family=6')).toEqual(['p7', 'p8']);
    expect(await set(P, 'family__n=6')).toEqual(['p1', 'p10', 'p2', 'p3', 'p4', 'p5', 'p6', 'p9']);
  });

  test('ip address parent, address with and without mask, mask_length, family', async () => {
    expect(await set(IP, 'parent=10.1.2.0/24')).toEqual(['a1', 'a2', 'a3', 'a6']);
    expect(await set(IP, 'parent=10.0.0.0/8')).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'a6']);
    expect(await set(IP, 'parent=10.1.2.0/25')).toEqual(['a1', 'a2', 'a6']);
    expect(await set(IP, 'address=10.1.2.9')).toEqual(['a1', 'a6']);
    expect(await set(IP, 'address=10.1.2.9/24')).toEqual(['a1', 'a6']);
    expect(await set(IP, 'address=10.1.2.9/25')).toEqual([]);
    expect(await set(IP, 'mask_length=32')).toEqual(['a4', 'a5']);
    expect(await set(IP, 'mask_length__gte=25')).toEqual(['a3', 'a4', 'a5', 'a7']);
    expect(await set(IP, 'mask_length__lte=16')).toEqual(['a8']);
    expect(await set(IP, 'family=6')).toEqual(['a7']);
  });

  test('vrf_id=null is the global table; vrf by rd; present_in_vrf_id', async () => {
    expect(await set(P, 'vrf_id=null')).toEqual(['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7']);
    expect(await set(P, `vrf_id=${id.red}`)).toEqual(['p8', 'p9']);
    expect(await set(P, 'vrf=65000:2')).toEqual(['p10']);
    expect(await set(P, `vrf_id__n=${id.red}`)).toEqual(['p1', 'p10', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7']);
    expect(await set(P, `present_in_vrf_id=${id.red}`)).toEqual(['p8', 'p9']);
    expect(await set(P, 'present_in_vrf=65000:1')).toEqual(['p8', 'p9']);
    expect(await set(IP, 'vrf_id=null')).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'a7']);
    expect(await set(IP, `present_in_vrf_id=${id.blue}`)).toEqual(['a8']);
  });
});

describe('q', () => {
  test('searches the declared fields, ignoring case; an address finds the networks holding it', async () => {
    expect(await set(P, 'q=10.1.2')).toEqual(['p3', 'p4', 'p9']);
    expect(await set(P, 'q=core')).toEqual(['p2']);
    expect(await set(P, 'q=10.1.2.130')).toEqual(['p1', 'p2', 'p3', 'p4', 'p9']);
    expect(await set(SITE, 'q=STERD')).toEqual(['ams']);
    expect(await set(SITE, 'q=basement')).toEqual(['lab']);
    expect(await set(SITE, 'q=fra')).toEqual(['fra']);
    expect(await set(SITE, 'q=')).toEqual(['ams', 'fra', 'lab', 'nyc']);
    expect(await set(VLAN, 'q=4094')).toEqual(['transit']);
    expect(await set(P, 'q=10.1&status=reserved')).toEqual(['p4']);
    expect(await set(P, 'q=%25')).toEqual([]);
  });
});

describe('ordering', () => {
  test('several fields, one descending: status, then -prefix by address value', async () => {
    // Status by value (active < container < deprecated < reserved); within it, prefixes by network
    // value descending (IPv6 after IPv4, so first), equal prefixes by id.
    expect(await names(P, 'ordering=status,-prefix')).toEqual(['p7', 'p10', 'p3', 'p9', 'p2', 'p6', 'p1', 'p5', 'p8', 'p4']);
    expect(await names(P, 'ordering=status&ordering=-prefix')).toEqual(['p7', 'p10', 'p3', 'p9', 'p2', 'p6', 'p1', 'p5', 'p8', 'p4']);
  });

  test('a foreign key orders by the related object\'s own order (site -> name), not by id', async () => {
    expect(await names(P, 'site_id__n=null&ordering=site')).toEqual(['p2', 'p7', 'p3', 'p5', 'p4']);
    expect(await names(P, 'site_id__n=null&ordering=-site')).toEqual(['p4', 'p5', 'p3', 'p2', 'p7']);
    expect(await names(P, 'site_id__n=null&ordering=site_id')).toEqual(['p2', 'p3', 'p4', 'p5', 'p7']);
  });

  test('addresses and networks order by value, not text', async () => {
    expect(await names(IP, 'vrf_id=null&family=4&ordering=address')).toEqual(['a5', 'a4', 'a1', 'a2', 'a3']);
    expect(await names(IP, 'vrf_id=null&family=4')).toEqual(['a5', 'a4', 'a1', 'a2', 'a3']);
    expect(await names(P, 'ordering=prefix&within_include=0.0.0.0/0&mask_length__lte=8')).toEqual(['p6', 'p1']);
    // Default prefix order: global table first, then VRFs by name (blue before red), each by prefix.
    expect(await names(P)).toEqual(['p6', 'p1', 'p2', 'p3', 'p4', 'p5', 'p7', 'p10', 'p9', 'p8']);
  });

  test('unknown ordering fields are ignored; known ones still apply', async () => {
    expect(await names(P, 'ordering=no_such_field')).toEqual(['p6', 'p1', 'p2', 'p3', 'p4', 'p5', 'p7', 'p10', 'p9', 'p8']);
    expect(await names(P, 'ordering=no_such_field,-prefix&vrf_id=null')).toEqual(['p7', 'p5', 'p4', 'p3', 'p2', 'p1', 'p6']);
  });

  test('ties are broken by id, so pages never overlap or skip', async () => {
    const made: number[] = [];
    for (let i = 0; i < 7; i++) made.push((await make(VLAN, `tie${i}`, { vid: 7, name: `tie-${6 - i}`, status: i % 2 ? 'active' : 'reserved' })).id);
    for (const ordering of ['', '&ordering=vid', '&ordering=status', '&ordering=-status', '&ordering=-vid,status']) {
      const seen: number[] = [];
      let url: string | null = `${VLAN}?vid=7&limit=2${ordering}`;
      while (url) {
        const res: { status: number; body: Rep } = await t.api.get(url.replace(/^https?:\/\/[^/]+/, '')).set(t.auth);
        expect(res.status).toBe(200);
        seen.push(...(res.body.results as Rep[]).map((r) => r.id as number));
        url = res.body.next;
      }
      expect({ ordering, seen: [...seen].sort((a, b) => a - b) }).toEqual({ ordering, seen: made });
      const all = await t.api.get(`${VLAN}?vid=7&limit=100${ordering}`).set(t.auth);
      expect({ ordering, paged: seen }).toEqual({ ordering, paged: (all.body.results as Rep[]).map((r) => r.id) });
    }
    // With only ties, the order is by id.
    expect((await t.api.get(`${VLAN}?vid=7&limit=100`).set(t.auth)).body.results.map((r: Rep) => r.id)).toEqual(made);
    const byStatus = (await t.api.get(`${VLAN}?vid=7&limit=100&ordering=status`).set(t.auth)).body.results.map((r: Rep) => r.id);
    expect(byStatus).toEqual([...made.filter((_, i) => i % 2), ...made.filter((_, i) => !(i % 2))]);
  });
});

describe('bad input', () => {
  test('an invalid value of a known filter is a 400 naming that parameter', async () => {
    for (const [path, param, value] of [
      [VLAN, 'vid', 'abc'],
      [VLAN, 'vid__gte', '1.5'],
      [P, 'prefix', 'not-an-ip'],
      [P, 'within', '10.0.0.0/33'],
      [P, 'contains', 'not-an-ip'],
      [IP, 'parent', '300.1.1.1/8'],
      [IP, 'address', 'not-an-ip'],
      [P, 'status', 'bogus'],
      [P, 'family', '5'],
      [P, 'mask_length', 'x'],
      [P, 'site', 'no-such-site'],
      [P, 'site_id', '999999'],
      [P, 'tag', 'no-such-tag'],
      [P, 'region', 'no-such-region'],
      [P, 'vrf_id', 'abc'],
      [P, 'is_pool', 'maybe'],
      [P, 'created__gte', 'yesterday'],
      [VLAN, 'group_id', 'g1'],
    ]) {
      const res = await status(path!, `${param}=${encodeURIComponent(value!)}`);
      expect({ param, value, status: res.status, keys: Object.keys(res.body) }).toEqual({ param, value, status: 400, keys: [param] });
      expect(res.body[param!]).toEqual([expect.any(String)]);
    }
  });

  test('several bad parameters are all reported', async () => {
    const res = await status(P, 'status=bogus&prefix=nope&site=ams');
    expect(res.status).toBe(400);
    expect(Object.keys(res.body).sort()).toEqual(['prefix', 'status']);
  });

  test('unknown parameters are ignored, as NetBox does', async () => {
    expect(await set(P, 'no_such_filter=1')).toEqual(ALL_PREFIXES);
    expect(await set(P, 'status__no_such_lookup=active')).toEqual(ALL_PREFIXES);
    expect(await set(P, 'statuses=active&site=ams')).toEqual(['p2', 'p7']);
  });
});

describe('device_id and interface filters on IP addresses (near the end: the factory adds objects of other models)', () => {
  test('device_id, device (by name), interface_id (null and __n), interface (by name), assigned_to_interface', async () => {
    const edge = await factory.create(modelOf('dcim.device'), { name: 'edge1', site: id.ams });
    const core = await factory.create(modelOf('dcim.device'), { name: 'core1', site: id.fra });
    const eth0 = await factory.create(modelOf('dcim.interface'), { device: edge.id, name: 'eth0' });
    const eth1 = await factory.create(modelOf('dcim.interface'), { device: edge.id, name: 'eth1' });
    const xe0 = await factory.create(modelOf('dcim.interface'), { device: core.id, name: 'xe-0/0/0' });
    const assign = async (key: string, iface: Rep) => {
      const res = await t.api.patch(`${IP}${id[key]}/`).set(t.auth).send({ assigned_object_type: 'dcim.interface', assigned_object_id: iface.id });
      expect({ key, status: res.status }).toEqual({ key, status: 200 });
    };
    await assign('a1', eth0);
    await assign('a2', eth1);
    await assign('a7', eth0);
    await assign('a3', xe0);
    expect(await set(IP, `device_id=${edge.id}`)).toEqual(['a1', 'a2', 'a7']);
    expect(await set(IP, `device_id=${edge.id}&device_id=${core.id}`)).toEqual(['a1', 'a2', 'a3', 'a7']);
    expect(await set(IP, 'device=core1')).toEqual(['a3']);
    expect(await set(IP, `device_id__n=${edge.id}`)).toEqual(['a3', 'a4', 'a5', 'a6', 'a8']);
    expect(await set(IP, `interface_id=${eth0.id}`)).toEqual(['a1', 'a7']);
    expect(await set(IP, `interface_id__n=${eth0.id}`)).toEqual(['a2', 'a3', 'a4', 'a5', 'a6', 'a8']);
    expect(await set(IP, 'interface_id=null')).toEqual(['a4', 'a5', 'a6', 'a8']);
    expect(await set(IP, 'interface=eth1')).toEqual(['a2']);
    expect(await set(IP, 'assigned_to_interface=true')).toEqual(['a1', 'a2', 'a3', 'a7']);
    expect(await set(IP, 'assigned_to_interface=false')).toEqual(['a4', 'a5', 'a6', 'a8']);
    expect(await set(IP, `device_id=${edge.id}&family=6`)).toEqual(['a7']);
    for (const [param, value] of [['device_id', 'abc'], ['device_id', '999999'], ['device', 'no-such-device'], ['interface_id', 'x'], ['interface_id', '999999'], ['assigned_to_interface', 'maybe']]) {
      const res = await status(IP, `${param}=${value}`);
      expect({ param, value, status: res.status, keys: Object.keys(res.body) }).toEqual({ param, value, status: 400, keys: [param] });
    }
  });
});

describe('MAC addresses (last: it creates objects of other models through the factory)', () => {
  test('mac_address: exact in any notation, ic, n, on every model that has one', async () => {
    // The spec lists mac_address among the filter examples. It lives on interfaces; this runs for each
    // model whose definition has a mac_address field, creating what the model requires first.
    const models = defs.listed.filter((m) => m.fields.get('mac_address')?.kind === 'mac');
    expect(models.map((m) => m.label)).toEqual(['dcim.interface', 'virtualization.vminterface']);
    for (const model of models) {
      const path = `/api/${model.app}/${model.path}/`;
      const a = await factory.create(model, { mac_address: '00:1A:2B:3C:4D:5E' });
      const b = await factory.create(model, { mac_address: 'aa-bb-cc-dd-ee-ff' });
      const c = await factory.create(model, { mac_address: null });
      const ours = new Set([a.id, b.id, c.id]);
      const q = async (query: string) => {
        const res = await t.api.get(`${path}?${query}&limit=1000`).set(t.auth);
        expect({ model: model.label, query, status: res.status }).toEqual({ model: model.label, query, status: 200 });
        return (res.body.results as Rep[]).map((r) => r.id).filter((x) => ours.has(x)).sort((x, y) => x - y);
      };
      expect(b.mac_address).toBe('AA:BB:CC:DD:EE:FF');
      expect(await q('mac_address=00:1a:2b:3c:4d:5e')).toEqual([a.id]);
      expect(await q('mac_address=001a.2b3c.4d5e')).toEqual([a.id]);
      expect(await q('mac_address=AA:BB:CC:DD:EE:FF&mac_address=00-1A-2B-3C-4D-5E')).toEqual([a.id, b.id]);
      expect(await q('mac_address__ic=dd:ee')).toEqual([b.id]);
      expect(await q('mac_address__n=AA:BB:CC:DD:EE:FF')).toEqual([a.id, c.id]);
      expect(await q('mac_address__empty=true')).toEqual([c.id]);
      const bad = await status(path, 'mac_address=not-a-mac');
      expect({ status: bad.status, keys: Object.keys(bad.body) }).toEqual({ status: 400, keys: ['mac_address'] });
    }
  });
});
