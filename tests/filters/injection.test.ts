/**
 * Hostile query strings against list filters: quotes, SQL fragments, placeholders, LIKE wildcards,
 * unicode, NUL, bytes that decode to replacement characters, 10 KB values, thousands of repeats and
 * parameter names that look like SQL. For every request the answer must be a 4xx naming the parameter
 * or exactly the rows the filter means (computed by the same oracle as the derived suite): never a
 * 500, never an extra row. The database is checked untouched at the end.
 */
import { quoteIdent } from '../../engine/migrations/identifiers';
import { startTestApp, type TestApp } from '../support/test-app';
import { readDefinitions, urlOf, type Model } from './support/definitions';
import { expectedFilters, matches, paramOf, type Family, type Universe } from './support/filter-plan';
import { fetchUniverse, sorted } from './support/list-client';
import type { Rep } from './support/object-factory';

const defs = readDefinitions();
const modelOf = (label: string): Model => defs.models.get(label)!;
let t: TestApp;
let u: Universe;

interface Payload {
  label: string;
  /** The value as it goes on the wire, already percent-encoded. */
  wire: string;
}
const enc = (label: string, value: string): Payload => ({ label, wire: encodeURIComponent(value) });

const TEXT_PAYLOADS: Payload[] = [
  enc('single quote', "'"),
  enc('double quote', '"'),
  enc("' OR 1=1 --", "' OR 1=1 --"),
  enc('closing paren', "') OR ('1'='1"),
  enc('stacked statement', "x'; DROP TABLE dcim_site; --"),
  enc('backslash', '\\'),
  enc('LIKE wildcards', '%_%'),
  enc('knex placeholder', '?'),
  enc('pg placeholder', '$1'),
  enc('cast', "1'::int --"),
  enc('unicode', 'Zürich 東京 🚀'),
  enc('right-to-left', '\u202Eevil'),
  { label: 'NUL', wire: 'a%00b' },
  { label: 'lone surrogate (CESU bytes)', wire: '%ED%A0%80' },
  { label: 'invalid UTF-8', wire: '%FF%FE' },
  enc('10 KB', 'x'.repeat(10 * 1024)),
  enc('10 KB of quotes', "'".repeat(10 * 1024)),
];
/** For filters whose values are parsed (numbers, choices, addresses, relations): the harder half. */
const TYPED_PAYLOADS = TEXT_PAYLOADS.filter((p) => ["' OR 1=1 --", 'knex placeholder', 'unicode', 'NUL', '10 KB'].includes(p.label)).concat([
  enc('number then SQL', '1 OR 1=1'),
  enc('huge number', '9'.repeat(400)),
  enc('address then SQL', "10.0.0.0/8' OR '1'='1"),
]);

/** The value the server sees for a wire value (WHATWG decoding: bad bytes become U+FFFD). */
const decoded = (wire: string) => new URLSearchParams(`v=${wire}`).get('v')!;

const MODELS = ['dcim.site', 'ipam.prefix', 'ipam.vlan', 'ipam.ipaddress', 'tenancy.tenant', 'extras.tag'];
const NAMES = [`O'Brien "HQ"`, 'Zürich 東京 🚀', '100%_done\\path', "' OR 1=1 --", '?', 'plain'];

async function post(path: string, body: Record<string, unknown>): Promise<Rep> {
  const res = await t.api.post(path).set(t.auth).send(body);
  if (res.status !== 201) throw new Error(`${path} ${JSON.stringify(body)}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Rep;
}

beforeAll(async () => {
  t = await startTestApp();
  for (const [i, name] of NAMES.entries()) {
    const tag = await post('/api/extras/tags/', { name, slug: `tag-${i}`, description: name });
    const tenant = await post('/api/tenancy/tenants/', { name, slug: `tenant-${i}`, description: name });
    const site = await post('/api/dcim/sites/', { name, slug: `site-${i}`, facility: name.slice(0, 50), description: name, tenant: tenant.id, tags: [tag.id] });
    const vlan = await post('/api/ipam/vlans/', { vid: 100 + i, name, site: site.id, description: name, tags: [tag.id] });
    await post('/api/ipam/prefixes/', { prefix: `10.${i}.0.0/16`, site: site.id, vlan: vlan.id, tenant: tenant.id, description: name, tags: [tag.id], status: i % 2 ? 'reserved' : 'active' });
    await post('/api/ipam/ip-addresses/', { address: `10.${i}.0.1/16`, tenant: tenant.id, description: name, dns_name: `host${i}.example.com` });
  }
  u = await fetchUniverse(t, defs, new Set(MODELS));
});

afterAll(async () => {
  await t?.close();
});

interface Outcome {
  status: number;
  body: Rep;
  ids: number[];
}

async function get(model: Model, rawQuery: string): Promise<Outcome> {
  const res = await t.api.get(`${urlOf(model)}?${rawQuery}&limit=1000&brief=1`).set(t.auth);
  return { status: res.status, body: res.body as Rep, ids: res.status === 200 ? sorted((res.body.results as Rep[]).map((r) => r.id)) : [] };
}

/**
 * The single rule: exactly the expected rows, or a 4xx (a 400 names the parameter). `mustAnswer`: the
 * value is ordinary text the filter takes, so refusing it would be wrong too.
 */
function judge(what: string, got: Outcome, expected: number[] | null, param: string, mustAnswer: boolean): void {
  if (mustAnswer) expect({ what, status: got.status }).toEqual({ what, status: 200 });
  if (got.status === 200) {
    // A value the oracle cannot read (not an address...) must not have been answered with rows.
    expect({ what, ids: got.ids }).toEqual({ what, ids: expected ?? 'a 4xx, not rows' });
    return;
  }
  expect({ what, clientError: got.status >= 400 && got.status < 500 }).toEqual({ what, clientError: true });
  if (got.status === 400) expect({ what, keys: Object.keys(got.body) }).toEqual({ what, keys: [param] });
}

/** One filter of each kind a model's definition implies (the first); created/last_updated parse like other dates. */
function sample(model: Model): Array<{ name: string; fam: Family }> {
  const out: Array<{ name: string; fam: Family }> = [];
  const kinds = new Set<string>(['created', 'last_updated']);
  for (const { name, fam } of expectedFilters(model)) {
    if (typeof fam === 'string') throw new Error(`${model.label} filter ${name}: ${fam}`);
    // Its oracle reads rows only the engine writes (the change log): its own file tests it (Family.elsewhere).
    if (fam.elsewhere || kinds.has(fam.kind)) continue;
    kinds.add(fam.kind);
    out.push({ name, fam });
  }
  return out;
}

const textual = (fam: Family) => fam.valueType === 'string' || fam.valueType === 'array';

describe.each(MODELS)('%s', (label) => {
  test('hostile values on one filter of each kind: 4xx or exactly the right rows', async () => {
    const model = modelOf(label);
    const rows = [...u.get(label)!.values()];
    let answered = 0;
    for (const { name, fam } of sample(model)) {
      const lookups = textual(fam) ? fam.lookups.filter((l) => ['exact', 'ic'].includes(l)) : ['exact'];
      for (const lookup of lookups) {
        const param = paramOf(name, lookup);
        for (const p of textual(fam) ? TEXT_PAYLOADS : TYPED_PAYLOADS) {
          const value = decoded(p.wire);
          let expected: number[] | null = null;
          try {
            expected = sorted(rows.filter((r) => matches(fam, lookup, [value], r, u)).map((r) => r.id));
          } catch {
            expected = null; // the oracle cannot read the value either (not an address...): only a 4xx will do
          }
          const plainText = textual(fam) && !value.includes('\u0000') && value.length <= 4096;
          const got = await get(model, `${encodeURIComponent(param)}=${p.wire}`);
          if (got.status === 200) answered++;
          judge(`${label} ${param} <- ${p.label}`, got, expected, param, plainText);
        }
      }
    }
    expect(answered).toBeGreaterThan(0);
  });

  test('q with hostile text matches its search fields literally', async () => {
    const model = modelOf(label);
    const rows = [...u.get(label)!.values()];
    const direct = (model.def.search ?? []).filter((s) => !s.includes('.'));
    for (const p of TEXT_PAYLOADS) {
      const value = decoded(p.wire);
      const needle = value.trim().toLowerCase();
      const expected = needle
        ? sorted(rows.filter((r) => direct.some((f) => r[f] !== null && r[f] !== undefined && String(r[f]).toLowerCase().includes(needle))).map((r) => r.id))
        : sorted(rows.map((r) => r.id));
      const got = await get(model, `q=${p.wire}`);
      judge(`${label} q <- ${p.label}`, got, expected, 'q', !value.includes('\u0000') && value.length <= 4096);
    }
  });
});

describe('thousands of values', () => {
  test('5000 repeats of a filter on several models: a 4xx, never rows', async () => {
    for (const [label, param, value] of [
      ['dcim.site', 'name', 'x'],
      ['dcim.site', 'tag', 'tag-0'],
      ['ipam.prefix', 'status', 'active'],
      ['ipam.prefix', 'within', '10.0.0.0/8'],
      ['ipam.vlan', 'vid', '100'],
      ['ipam.ipaddress', 'address', '10.0.0.1'],
      ['tenancy.tenant', 'id', '1'],
    ] as const) {
      const model = modelOf(label);
      const got = await get(model, Array(5000).fill(`${param}=${encodeURIComponent(value)}`).join('&'));
      expect({ label, param, clientError: got.status >= 400 && got.status < 500 }).toEqual({ label, param, clientError: true });
      if (got.status === 400) expect(Object.keys(got.body)).toEqual([param]);
    }
  });

  test('up to the limit of values per parameter the rows are exact; one more is a 400', async () => {
    const vlan = modelOf('ipam.vlan');
    const vids = Array.from({ length: 1000 }, (_, i) => i + 1);
    const expected = sorted([...u.get('ipam.vlan')!.values()].filter((r) => r.vid <= 1000).map((r) => r.id));
    const ok = await get(vlan, vids.map((v) => `vid=${v}`).join('&'));
    expect({ status: ok.status, ids: ok.ids }).toEqual({ status: 200, ids: expected });
    const over = await get(vlan, [...vids, 1001].map((v) => `vid=${v}`).join('&'));
    expect({ status: over.status, keys: Object.keys(over.body) }).toEqual({ status: 400, keys: ['vid'] });

    const site = modelOf('dcim.site');
    const sites = [...u.get('dcim.site')!.values()];
    const many = await get(site, Array.from({ length: 1000 }, (_, i) => (i ? 'name=plain' : `name=${encodeURIComponent(NAMES[1]!)}`)).join('&'));
    expect({ status: many.status, ids: many.ids }).toEqual({ status: 200, ids: sorted(sites.filter((s) => s.name === 'plain' || s.name === NAMES[1]).map((s) => s.id)) });
    const tags = await get(site, Array.from({ length: 1000 }, () => 'tag=tag-0').join('&'));
    expect({ status: tags.status, ids: tags.ids }).toEqual({ status: 200, ids: sorted(sites.filter((s) => s.tags.some((x: Rep) => x.slug === 'tag-0')).map((s) => s.id)) });
    // A thousand distinct tags (all must be present): one sub-select, not a thousand joins for the planner.
    const distinct = await get(site, Array.from({ length: 1000 }, (_, i) => `tag=tag-${i}`).join('&'));
    expect({ status: distinct.status, keys: Object.keys(distinct.body) }).toEqual({ status: 400, keys: ['tag'] });
  });

  test('thousands of distinct unknown parameters are ignored (or refused as too large), never a 500', async () => {
    const prefix = modelOf('ipam.prefix');
    const all = sorted([...u.get('ipam.prefix')!.keys()]);
    for (const n of [500, 5000]) {
      const got = await get(prefix, Array.from({ length: n }, (_, i) => `zz${i}=1`).join('&'));
      if (got.status === 200) expect(got.ids).toEqual(all);
      else expect({ n, clientError: got.status >= 400 && got.status < 500 }).toEqual({ n, clientError: true });
    }
  });
});

describe('SQL in names rather than values', () => {
  test('parameter names, lookups, cf_ names and ordering that look like SQL change nothing', async () => {
    const site = modelOf('dcim.site');
    const all = sorted([...u.get('dcim.site')!.keys()]);
    for (const raw of [
      `${encodeURIComponent("name' OR 1=1 --")}=x`,
      `${encodeURIComponent('name__ic) OR (1=1')}=x`,
      `${encodeURIComponent('"t"."id"')}=1`,
      `${encodeURIComponent("cf_x' OR 1=1 --")}=1`,
      `${encodeURIComponent('cf_x__ic')}=${encodeURIComponent("' OR 1=1 --")}`,
      `ordering=${encodeURIComponent('name; DROP TABLE dcim_site; --')}`,
      `ordering=${encodeURIComponent('-"id"')}`,
      `ordering=${encodeURIComponent('(SELECT 1)')}`,
      `ordering=${encodeURIComponent('name,-' + 'x'.repeat(10000))}`,
      `${encodeURIComponent('name\u0000')}=1`,
    ]) {
      const got = await get(site, raw);
      if (got.status === 200) expect({ raw, ids: got.ids }).toEqual({ raw, ids: all });
      else expect({ raw, status: got.status }).toEqual({ raw, status: 400 });
    }
  });

  test('the data is untouched after all of the above', async () => {
    for (const label of MODELS) {
      const model = modelOf(label);
      const n = await t.knex.raw(`SELECT count(*)::int AS "n" FROM ${quoteIdent(model.table)}`);
      expect({ label, rows: (n.rows as Array<{ n: number }>)[0]!.n }).toEqual({ label, rows: u.get(label)!.size });
    }
    const names = await t.knex.raw(`SELECT "name" FROM "dcim_site" ORDER BY "id"`);
    expect((names.rows as Array<{ name: string }>).map((r) => r.name)).toEqual(NAMES);
  });
});
