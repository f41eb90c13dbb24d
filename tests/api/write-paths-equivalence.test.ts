import type { Registry } from '../../engine/definitions/registry-types';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * The two write paths are one behaviour: a plain single create or change is written as one statement
 * (engine/writes/one-statement-writes.ts), anything else in a transaction, and
 * PATCHBAY_ONE_STATEMENT_WRITES=false makes every write transactional. The same writes (creates, changes,
 * deletes of several related types, with custom fields, tags, refused values and a refused duplicate)
 * are sent to two servers, one per setting, each on its own fresh database; then both must have the same
 * answers, the same rows in every table, the same change log and the same outbox events (ids, times and
 * request ids aside: a change or an event is named by the step that caused it).
 */

interface Step {
  name: string;
  method: 'post' | 'patch' | 'put' | 'delete';
  /** A path, with `{ref}` replaced by the id the step named `ref` created in the same server. */
  path: string;
  body?: unknown;
}

const HOOK = { name: 'hook', payload_url: 'http://receiver.invalid/hook' };
const LOGGED = ['dcim.site', 'tenancy.tenant', 'tenancy.tenantgroup', 'ipam.vlan', 'ipam.ipaddress', 'extras.configtemplate'];

const STEPS: Step[] = [
  { name: 'cf_text', method: 'post', path: '/api/extras/custom-fields/', body: { name: 'cf_text', type: 'text', content_types: ['dcim.site', 'tenancy.tenant'], default: 'unset' } },
  { name: 'cf_int', method: 'post', path: '/api/extras/custom-fields/', body: { name: 'cf_int', type: 'integer', content_types: ['dcim.site'] } },
  { name: 'blue', method: 'post', path: '/api/extras/tags/', body: { name: 'Blue', slug: 'blue' } },
  { name: 'red', method: 'post', path: '/api/extras/tags/', body: { name: 'Red', slug: 'red' } },
  { name: 'hook', method: 'post', path: '/api/extras/webhooks/', body: HOOK },
  { name: 'rule', method: 'post', path: '/api/extras/event-rules/', body: { name: 'all', content_types: LOGGED, type_create: true, type_update: true, type_delete: true, action_object_type: 'extras.webhook', action_object_id: '{hook}' } },
  { name: 'group', method: 'post', path: '/api/tenancy/tenant-groups/', body: { name: 'Group', slug: 'group' } },
  { name: 'tenant', method: 'post', path: '/api/tenancy/tenants/', body: { name: 'Tenant', slug: 'tenant', group: '{group}', custom_fields: { cf_text: 'mine' } } },
  { name: 'site1', method: 'post', path: '/api/dcim/sites/', body: { name: 'Site 1', slug: 'site-1', tenant: '{tenant}', status: 'planned', latitude: '12.5', custom_fields: { cf_int: 3 } } },
  { name: 'site2', method: 'post', path: '/api/dcim/sites/', body: { name: 'Site 2', slug: 'site-2', tags: ['{blue}'] } },
  { name: 'refused value', method: 'post', path: '/api/dcim/sites/', body: { name: 'Site 3', slug: 'site-3', status: 'nope' } },
  { name: 'refused duplicate', method: 'post', path: '/api/dcim/sites/', body: { name: 'Site 1', slug: 'site-1-again' } },
  { name: 'refused custom field', method: 'post', path: '/api/dcim/sites/', body: { name: 'Site 4', slug: 'site-4', custom_fields: { cf_int: 'many' } } },
  { name: 'patch site1', method: 'patch', path: '/api/dcim/sites/{site1}/', body: { description: 'first', custom_fields: { cf_int: 4 } } },
  { name: 'put site1', method: 'put', path: '/api/dcim/sites/{site1}/', body: { name: 'Site One', slug: 'site-1', status: 'active' } },
  { name: 'tag site2', method: 'patch', path: '/api/dcim/sites/{site2}/', body: { tags: ['{red}', '{blue}'], tenant: '{tenant}' } },
  { name: 'patch missing', method: 'patch', path: '/api/dcim/sites/999999/', body: { description: 'none' } },
  { name: 'refused change', method: 'patch', path: '/api/dcim/sites/{site1}/', body: { latitude: 91 } },
  { name: 'vlan', method: 'post', path: '/api/ipam/vlans/', body: { vid: 10, name: 'Ten', site: '{site1}', tenant: '{tenant}' } },
  { name: 'ip', method: 'post', path: '/api/ipam/ip-addresses/', body: { address: '10.0.0.1/24', tenant: '{tenant}', status: 'reserved' } },
  { name: 'patch ip', method: 'patch', path: '/api/ipam/ip-addresses/{ip}/', body: { dns_name: 'one.example.com', tenant: null } },
  { name: 'patch tenant', method: 'patch', path: '/api/tenancy/tenants/{tenant}/', body: { description: 'renamed', custom_fields: { cf_text: null } } },
  { name: 'bulk sites', method: 'post', path: '/api/dcim/sites/', body: [{ name: 'Bulk A', slug: 'bulk-a' }, { name: 'Bulk B', slug: 'bulk-b', tenant: '{tenant}' }] },
  { name: 'bulk patch', method: 'patch', path: '/api/dcim/sites/', body: [{ id: '{site1}', description: 'bulk' }, { id: '{site2}', status: 'retired' }] },
  { name: 'template', method: 'post', path: '/api/extras/config-templates/', body: { name: 'T', template_code: '{{ x }}' } },
  { name: 'null params', method: 'patch', path: '/api/extras/config-templates/{template}/', body: { environment_params: null } },
  { name: 'delete vlan', method: 'delete', path: '/api/ipam/vlans/{vlan}/' },
  { name: 'delete site2', method: 'delete', path: '/api/dcim/sites/{site2}/' },
  { name: 'delete tenant in use', method: 'delete', path: '/api/tenancy/tenants/{tenant}/' },
];

/** Which writes the one-statement server writes as one statement (no BEGIN): plain single creates and changes. */
// IP addresses are judged for duplicates after the write (a no_overlap rule), so theirs are transactional.
// A JSON field written empty (null params) is SQL NULL, which the one-statement write carries as it is.
const ONE_STATEMENT = ['blue', 'red', 'hook', 'tenant', 'site1', 'refused duplicate', 'patch site1', 'put site1', 'patch missing', 'patch tenant', 'template', 'null params'];

interface Run {
  /** Per step: status, answer (times as <time>), and whether it ran a transaction. */
  answers: Array<{ step: string; status: number; body: unknown; transaction: boolean }>;
  /** X-Request-ID -> step name. */
  requests: Map<string, string>;
}

const TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}/;

/** The value with times replaced by "<time>" and request ids by the step that sent them. */
function normal(value: unknown, requests: Map<string, string>): unknown {
  if (value instanceof Date) return '<time>';
  if (typeof value === 'string') {
    if (TIME.test(value)) return '<time>';
    return requests.has(value) ? `<request ${requests.get(value)!}>` : value;
  }
  if (Array.isArray(value)) return value.map((v) => normal(v, requests));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, normal(v, requests)]));
  }
  return value;
}

async function play(t: TestApp): Promise<Run> {
  const ids = new Map<string, number>();
  const fill = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const m = /^\{(\w+)\}$/.exec(v);
      if (m) return ids.get(m[1]!);
      return v.replace(/\{(\w+)\}/g, (_, ref: string) => String(ids.get(ref)));
    }
    if (Array.isArray(v)) return v.map(fill);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
    return v;
  };
  const run: Run = { answers: [], requests: new Map() };
  for (const step of STEPS) {
    t.queries.reset();
    const req = t.api[step.method](fill(step.path) as string).set(t.auth).set('Host', 'patchbay.test');
    const res = step.body === undefined ? await req : await req.send(fill(step.body) as object);
    if (res.status === 201 && !Array.isArray(res.body)) ids.set(step.name, res.body.id as number);
    run.requests.set(res.headers['x-request-id'] as string, step.name);
    run.answers.push({ step: step.name, status: res.status, body: res.body, transaction: t.queries.log.some((q) => /^\s*BEGIN/i.test(q)) });
  }
  return run;
}

/** Every table of the registry (join tables too), each row as normal() leaves it, in id order. */
async function tables(t: TestApp, registry: Registry, skip: ReadonlySet<string>, requests: Map<string, string>): Promise<Record<string, unknown[]>> {
  const names = new Set<string>();
  for (const model of registry.models.values()) {
    names.add(model.table);
    for (const f of model.fieldList) if ((f.kind === 'm2m' || f.kind === 'tags') && f.joinTable) names.add(f.joinTable);
  }
  const out: Record<string, unknown[]> = {};
  for (const name of [...names].sort()) {
    if (skip.has(name)) continue;
    const rows = (await t.knex.raw(`SELECT * FROM "${name}" ORDER BY 1`)).rows as unknown[];
    if (rows.length) out[name] = normal(rows, requests) as unknown[];
  }
  return out;
}

/** Rows of a log table without their own ids, in the order written. */
async function logRows(t: TestApp, table: string, requests: Map<string, string>): Promise<unknown[]> {
  const rows = (await t.knex.raw(`SELECT * FROM "${table}" ORDER BY "id"`)).rows as Array<Record<string, unknown>>;
  return rows.map((row) => {
    const rest = { ...row };
    delete rest.id;
    return normal(rest, requests);
  });
}

let fast: TestApp;
let careful: TestApp;
let fastRun: Run;
let carefulRun: Run;

beforeAll(async () => {
  fast = await startTestApp({ env: { PATCHBAY_ONE_STATEMENT_WRITES: 'true' } });
  careful = await startTestApp({ env: { PATCHBAY_ONE_STATEMENT_WRITES: 'false' } });
  fastRun = await play(fast);
  carefulRun = await play(careful);
}, 180_000); // two servers migrated and the whole scenario twice, on 2 shared cores
afterAll(async () => {
  await fast?.close();
  await careful?.close();
});

test('the servers took the paths they were told to: the plain single writes in one statement, or none', () => {
  expect(fastRun.answers.filter((a) => !a.transaction).map((a) => a.step)).toEqual(ONE_STATEMENT);
  expect(carefulRun.answers.filter((a) => !a.transaction).map((a) => a.step)).toEqual([]);
});

test('the same answers', () => {
  const shown = (r: Run) => r.answers.map(({ step, status, body }) => ({ step, status, body: normal(body, r.requests) }));
  expect(shown(fastRun)).toEqual(shown(carefulRun));
  // The scenario is what it says: the refusals were refused, the rest written.
  expect(fastRun.answers.filter((a) => a.status >= 400).map((a) => [a.step, a.status])).toEqual([
    ['refused value', 400], ['refused duplicate', 400], ['refused custom field', 400], ['patch missing', 404], ['refused change', 400], ['delete tenant in use', 409],
  ]);
});

test('the same rows in every table', async () => {
  const registry = fast.registry;
  const logs = new Set([registry.roles.get('object_change')!.table, registry.roles.get('event_outbox')!.table, registry.roles.get('token')?.table ?? 'users_token']);
  const a = await tables(fast, registry, logs, fastRun.requests);
  const b = await tables(careful, registry, logs, carefulRun.requests);
  expect(Object.keys(a)).toEqual(Object.keys(b));
  for (const name of Object.keys(a)) expect([name, a[name]]).toEqual([name, b[name]]);
  expect(a.dcim_site?.length).toBe(3);
});

test('the same change log', async () => {
  const table = fast.registry.roles.get('object_change')!.table;
  const a = await logRows(fast, table, fastRun.requests);
  expect(a.length).toBeGreaterThan(20);
  expect(await logRows(careful, table, carefulRun.requests)).toEqual(a);
});

test('the same outbox events', async () => {
  const table = fast.registry.roles.get('event_outbox')!.table;
  const a = await logRows(fast, table, fastRun.requests);
  expect(a.length).toBeGreaterThan(10);
  expect(await logRows(careful, table, carefulRun.requests)).toEqual(a);
});
