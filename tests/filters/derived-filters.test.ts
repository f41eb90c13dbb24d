/**
 * Filters derived from the definitions, tested from the definitions. For every model with a list
 * endpoint, the filters its definition implies (expectedFilters: read from the JSON files as written,
 * by the rules of docs/filtering.md) are each classified by kind and queried, positive and negated,
 * with values of objects generated for it (A, B, C differing in every field, related objects created
 * first by following the relations); each result is compared, as the exact set of ids of the whole
 * table, with an oracle written once per kind. The first filter of each kind in a model also runs its
 * kind's other lookups and must answer an invalid value with a 400 naming the parameter (see planAll
 * for how much each filter runs), and unknown parameters must change nothing. The engine's filter
 * table must hold exactly these filters, and NetBox 3.7's filters apart from the differences listed in
 * netbox-differences.ts. Adding a model or a field adds its tests; a filter of a kind the suite does
 * not know fails.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ResolvedModel } from '../../engine/definitions/registry-types';
import { filterTable } from '../../engine/filters/filter-table';
import { startTestApp, type TestApp } from '../support/test-app';
import { readDefinitions, type Model } from './support/definitions';
import { checksFor, expectedFilters, invalidChecks, lookupsOf, matches, paramOf, type ExpectedFilter, type Family, type Universe } from './support/filter-plan';
import { generateSets } from './support/generate-sets';
import { list, sorted, UniverseCache } from './support/list-client';
import { DECISIONS, EXTRAS, GAPS, PATCHBAY_ONLY_ENDPOINTS, UNREFERENCED_ENDPOINTS, type Difference } from './support/netbox-differences';
import { netboxFilters, type FilterLookups } from './support/netbox-reference';
import { ObjectFactory, type Rep } from './support/object-factory';
import { catalogueTest, onlySelected } from '../support/selected-types';

// Read at collection time, from the files themselves, so that each model and filter is a test of its own.
const defs = readDefinitions();
const listed = defs.listed;

interface Planned {
  expected: ExpectedFilter;
  fam: Family | string;
  /** The lookups this test runs (see planAll). */
  lookups: readonly string[];
  /** Only the first value list of each lookup. */
  thin: boolean;
  /** How many invalid values to try (all for the first of a kind in the suite, one for the first in a model). */
  invalid: number;
}

/** Lookups the first filter of a kind runs in each model after the suite's first (one value list each). */
const MODEL_LOOKUPS = ['exact', 'n', 'ic', 'gte', 'empty'];
/** Lookups every further filter of a kind runs (the same code on another column). */
const FIELD_LOOKUPS = ['exact', 'n'];

/**
 * How much each filter is exercised, so that the suite stays fast as models are added while every
 * model keeps every kind: the first filter of a kind in the whole suite runs every lookup with every
 * value list; the first of that kind in each other model runs exact, n, ic, gte and empty (those it
 * has) with one value list; every other filter runs exact and n. id, created and last_updated compile
 * to the same SQL in every model, so after the first model they are sampled like further filters.
 */
function planAll(models: Model[]): Map<string, Planned[]> {
  const suiteSeen = new Set<string>();
  const out = new Map<string, Planned[]>();
  for (const m of models) {
    const modelSeen = new Set<string>();
    out.set(m.label, expectedFilters(m).map((expected) => {
      const fam = expected.fam;
      const all = lookupsOf(expected);
      const kind = typeof fam === 'string' ? fam : `${fam.kind}/${fam.order ?? ''}`;
      const firstInSuite = !suiteSeen.has(kind);
      const firstInModel = !modelSeen.has(kind) && !expected.builtin;
      suiteSeen.add(kind);
      modelSeen.add(kind);
      const pick = (wanted: string[]) => {
        const l = all.filter((x) => wanted.includes(x));
        return l.length ? l : all;
      };
      if (firstInSuite) return { expected, fam, lookups: all, thin: false, invalid: Infinity };
      if (firstInModel) return { expected, fam, lookups: pick(MODEL_LOOKUPS), thin: true, invalid: 1 };
      return { expected, fam, lookups: pick(FIELD_LOOKUPS), thin: true, invalid: 0 };
    }));
  }
  return out;
}

// With types selected (npm test -- --types), only theirs: each then runs every lookup of its first filter of a kind.
const plans = planAll(onlySelected(listed));

/**
 * The models whose rows the oracle reads for these filters: the model itself, targets named by natural
 * key or walked as trees, and the models along declared paths (children and reverse relations included).
 */
function neededModels(m: Model, families: Family[]): Set<string> {
  const out = new Set([m.label]);
  for (const fam of families) {
    if (fam.target && (fam.byKey || fam.descend)) out.add(fam.target.label);
    for (const label of fam.reads ?? []) out.add(label);
  }
  return out;
}

/** Runs the async functions a few at a time (the app serves requests concurrently on PostgreSQL). */
async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

let t: TestApp;
let factory: ObjectFactory;
let universes: UniverseCache;

beforeAll(async () => {
  // Devices and modules come with their types' components (instantiate), so a component list outgrows 1,000 rows.
  t = await startTestApp({ env: { MAX_PAGE_SIZE: '10000' } });
  factory = new ObjectFactory(t, defs);
  universes = new UniverseCache(t, defs, factory.dirty);
});

afterAll(async () => {
  await t?.close();
});

/** name:lookups, sorted, for comparing filter lists. */
const describeFilters = (filters: Array<{ name: string; lookups: readonly string[] }>) => filters.map((f) => `${f.name}:${[...f.lookups].sort().join(',')}`).sort();

/** The model the running app serves at a definition's list endpoint. */
const servedModel = (m: Model): ResolvedModel | undefined => t.registry.byPath.get(`${m.app}/${m.path}`);

test('the running app serves the list endpoints of the definitions, each with exactly the filters its definition implies', () => {
  expect([...t.registry.byPath.keys()].sort()).toEqual(listed.map((m) => `${m.app}/${m.path}`).sort());
  for (const m of listed) {
    const served = describeFilters([...filterTable(servedModel(m)!).values()]);
    const implied = describeFilters(expectedFilters(m).map((f) => ({ name: f.name, lookups: lookupsOf(f) })));
    expect({ model: m.label, filters: served }).toEqual({ model: m.label, filters: implied });
  }
  expect(listed.length).toBeGreaterThan(0);
});

/** Whether `file#anchor` (a path from the repository root) names a heading of that Markdown file, anchored as GitHub does. */
function sectionExists(ref: string): boolean {
  const [file, anchor] = ref.split('#') as [string, string | undefined];
  const text = fs.readFileSync(path.join(__dirname, '..', '..', file), 'utf8');
  const anchors = [...text.matchAll(/^#+ (.*)$/gm)].map((m) => m[1]!.trim().toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-'));
  return anchor !== undefined && anchors.includes(anchor);
}

/** What one side has that the other lacks: `name` for a whole filter, `name__lookup` for one lookup of a filter both have. */
function lacking(have: FilterLookups, other: FilterLookups): string[] {
  return Object.entries(have).flatMap(([name, lookups]) => (other[name] ? lookups.filter((l) => !other[name]!.includes(l)).map((l) => `${name}__${l}`) : [name]));
}

/** Whether a side's filters hold an item (`name`, or `name__lookup`). */
function holds(filters: FilterLookups, item: string): boolean {
  const [name, lookup] = item.split('__') as [string, string | undefined];
  return !!filters[name] && (lookup === undefined || filters[name]!.includes(lookup));
}

/**
 * The listed differences as `<endpoint> <item>`: `*` stands for every endpoint served where `side`
 * (NetBox for gaps, Patchbay for extras) holds the item; an item `*` names nowhere is reported.
 */
function listedItems(list: Difference[], endpoints: string[], side: (endpoint: string) => FilterLookups, nowhere: string[]): string[] {
  return list.flatMap((d) => Object.entries(d.on).flatMap(([where, items]) => {
    if (where !== '*') return items.map((item) => `${where} ${item}`);
    return items.flatMap((item) => {
      const at = endpoints.filter((e) => holds(side(e), item));
      if (!at.length) nowhere.push(`* ${item} (${d.why})`);
      return at.map((e) => `${e} ${item}`);
    });
  }));
}

test("the filters of every endpoint served are NetBox 3.7's, apart from the differences listed with their reasons", () => {
  const netbox = netboxFilters();
  const unreferenced = UNREFERENCED_ENDPOINTS.map((o) => o.endpoint);
  expect(unreferenced.filter((e) => netbox.has(e))).toEqual([]);
  const only = new Set([...PATCHBAY_ONLY_ENDPOINTS.map((o) => o.endpoint), ...unreferenced]);
  const endpoints = listed.map((m) => `${m.app}/${m.path}`).filter((e) => !only.has(e));
  expect(endpoints.filter((e) => !netbox.has(e))).toEqual([]);
  expect([...only].filter((e) => netbox.has(e))).toEqual([]);
  // Patchbay's side: the filter table the running app serves, and q, which the list's search serves
  // outside that table on every model whose definition names search fields.
  const patchbay = new Map(listed.filter((m) => !only.has(`${m.app}/${m.path}`)).map((m) => {
    const table: FilterLookups = Object.fromEntries([...filterTable(servedModel(m)!).values()].map((d) => [d.name, [...d.lookups]]));
    if (m.def.search?.length) table.q = ['exact'];
    return [`${m.app}/${m.path}`, table];
  }));
  const found = (from: (e: string) => FilterLookups, to: (e: string) => FilterLookups) => endpoints.flatMap((e) => lacking(from(e), to(e)).map((item) => `${e} ${item}`)).sort();
  const nowhere: string[] = [];
  const gaps = found((e) => netbox.get(e)!, (e) => patchbay.get(e)!);
  const extras = found((e) => patchbay.get(e)!, (e) => netbox.get(e)!);
  // What NetBox has and Patchbay lacks: gaps still to serve, and decisions not to (each stated in docs/).
  expect({ gaps }).toEqual({ gaps: listedItems([...GAPS, ...DECISIONS], endpoints, (e) => netbox.get(e)!, nowhere).sort() });
  expect({ extras }).toEqual({ extras: listedItems(EXTRAS, endpoints, (e) => patchbay.get(e)!, nowhere).sort() });
  expect({ nowhere }).toEqual({ nowhere: [] });
  // A gap excused because its object type is not defined stops being excused once it is.
  expect(GAPS.filter((d) => d.notYet && defs.models.has(d.notYet)).map((d) => `${d.notYet} is defined now: ${JSON.stringify(d.on)}`)).toEqual([]);
  // Each decision names the section of docs/ that states it, and the section is there.
  expect(DECISIONS.filter((d) => !sectionExists(d.docs)).map((d) => d.docs)).toEqual([]);
});

catalogueTest('every kind of filter the definitions produce is exercised somewhere', () => {
  const kinds = new Set([...plans.values()].flat().map((p) => (typeof p.fam === 'string' ? `unclassified: ${p.fam}` : p.fam.kind)));
  const lookups = new Set([...plans.values()].flat().flatMap((p) => lookupsOf(p.expected)));
  // The floor of what today's definitions contain; new kinds only add to it.
  for (const kind of [
    'id', 'created', 'last_updated', 'string', 'numeric', 'date', 'datetime', 'boolean', 'choice', 'computed choice',
    'cidr', 'inet', 'label list', 'fk _id', 'fk natural key', 'fk _id (tree descendants)', 'fk _id (tree parent, direct)',
    'tags', 'generic _type', 'generic _id', 'declared fk_id', 'declared fk_id (tree descendants)', 'declared fk_key (tree descendants)',
    'declared field (numeric)', 'declared net_contained', 'declared net_contained_or_equal', 'declared net_contains_or_equals',
    'declared net_host_contained', 'declared net_mask_length', 'declared fk_id (generic, one type)', 'declared field (string)',
    // Declared paths through children, reverse relations and several paths; generic, is_set and available_on lookups.
    'declared generic_type, through children', 'declared generic_id, through children',
    'declared fk_id (generic, one type), several paths, through children', 'declared fk_id, several paths, through children',
    'declared fk_key (tree descendants), several paths, through children', 'declared fk_id, through a reverse relation',
    'declared fk_key (tree descendants), through a reverse relation', 'declared fk_id (m2m), several paths',
    'declared is_set', 'declared is_set (reverse generic)', 'declared is_set (reverse generic, flag), several paths', 'declared available_on',
    // Types named by the ids of the content types table (custom fields, bookmarks, tags).
    'declared content_type_id', 'declared content_type_id (empty matches all)',
  ]) {
    expect([...kinds]).toContain(kind);
  }
  expect([...kinds].filter((k) => k.startsWith('unclassified'))).toEqual([]);
  for (const l of ['exact', 'n', 'ic', 'nic', 'isw', 'nisw', 'iew', 'niew', 'ie', 'nie', 'empty', 'lt', 'lte', 'gt', 'gte']) expect([...lookups]).toContain(l);
});

// A read-only type (content types) cannot be given the objects these cases make: tests/extras covers its filters.
for (const defined of onlySelected(listed).filter((m) => !m.def.read_only)) {
  const label = defined.label;
  const planned = plans.get(label)!;

  describe(label, () => {
    const model = defined;
    let sets: Map<string, number[]>;
    let u: Universe;

    // A model with many relations to fill (a cable and its terminations' devices) takes most of a minute here on
    // a crowded 2-core machine; jest's 60 s default for a hook failed all its tests at once (load average 12).
    beforeAll(async () => {
      // Filters through rows only the engine writes are exercised by hand in their own file (Family.elsewhere).
      const families = planned.map((p) => p.fam).filter((f): f is Family => typeof f !== 'string' && !f.elsewhere);
      sets = await generateSets(t, factory, model, families);
      u = await universes.get(neededModels(model, families));
    }, 180_000);

    // The custom fields made here apply to other types, and some are required: objects of those types
    // made later in this file would be refused for lacking a value. They go once their filters are tested.
    if (defined.def.role === 'custom_field') {
      afterAll(async () => {
        const made = await t.api.get(`/api/${model.app}/${model.path}/?limit=0&brief=1`).set(t.auth);
        const ids = (made.body.results as Rep[]).map((r) => ({ id: r.id as number }));
        const gone = ids.length ? await t.api.delete(`/api/${model.app}/${model.path}/`).set(t.auth).send(ids) : { status: 204 };
        expect(gone.status).toBe(204);
        factory.dirty.add(label);
      });
    }

    for (const { expected: { name }, fam, lookups, thin, invalid: invalidCount } of planned) {
      if (typeof fam !== 'string' && fam.elsewhere) continue;
      const kind = typeof fam === 'string' ? 'unclassified' : fam.kind;
      test(`${name} [${kind}]: ${lookups.join(' ')}${invalidCount ? '; invalid values are a 400' : ''}`, async () => {
        if (typeof fam === 'string') throw new Error(`${label} filter ${name}: ${fam}. Teach tests/filters/support/filter-plan.ts this kind of filter.`);
        const rows = [...u.get(label)!.values()];
        const set = sets.get(fam.set)!.map((id) => u.get(fam.setOf?.label ?? label)!.get(id)!);
        const checks = checksFor(fam, name, set, u, lookups, thin);
        let informative = 0;
        await inBatches(checks, 6, async (c) => {
          const param = paramOf(name, c.lookup);
          const expected = sorted(rows.filter((r: Rep) => matches(fam, c.lookup, c.values, r, u)).map((r) => r.id as number));
          if (expected.length > 0 && expected.length < rows.length) informative++;
          const got = await list(t, model, c.values.map((v) => [param, v]), { brief: true });
          expect({ param, values: c.values, status: got.status, ids: sorted(got.ids) }).toEqual({ param, values: c.values, status: 200, ids: expected });
        });
        // The data must tell the lookups apart, or the comparisons above prove nothing; but a required
        // generic relation that may point at one type only (an event rule's action_object) holds that
        // type on every row, and then there is nothing to tell apart.
        const oneType = fam.valueType === 'generic-type' && rows.length > 0 && new Set(rows.map((r) => JSON.stringify(fam.extract(r, u)))).size === 1 && fam.extract(rows[0]!, u) !== null;
        if (!oneType) expect(informative).toBeGreaterThan(0);

        if (!invalidCount) return;
        const invalid = invalidChecks(fam).filter((c) => lookups.includes(c.lookup)).slice(0, invalidCount);
        expect(invalid.length).toBeGreaterThan(0);
        await inBatches(invalid, 6, async (c) => {
          const param = paramOf(name, c.lookup);
          const got = await list(t, model, [[param, c.values[0]!]], { brief: true });
          expect({ param, value: c.values[0], status: got.status, keys: Object.keys(got.body ?? {}) }).toEqual({ param, value: c.values[0], status: 400, keys: [param] });
          expect(got.body[param]).toEqual([expect.any(String)]);
        });
      });
    }

    test('unknown parameters, unknown lookups, unknown cf_ names and unknown ordering fields are ignored', async () => {
      const all = sorted([...u.get(label)!.keys()]);
      const someFilter = planned[planned.length - 1]!.expected.name;
      for (const query of [
        [['no_such_filter', '1'], [`${someFilter}__no_such_lookup`, 'x'], ['cf_no_such_custom_field', 'x'], ['ordering', 'no_such_field']],
        [['no_such_filter', "' OR 1=1 --"], ['also_unknown__ic', 'x'], ['id__regex', '.*']],
      ] as Array<Array<[string, string]>>) {
        const got = await list(t, model, query, { brief: true });
        expect({ query, status: got.status, ids: sorted(got.ids) }).toEqual({ query, status: 200, ids: all });
      }
    });
  });
}
