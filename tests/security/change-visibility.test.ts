/**
 * Section 3 of the attacker's trial: the change log (/api/extras/object-changes/) and the event outbox
 * (/api/extras/event-deliveries/) showed every object's full data, before and after each change, to
 * whoever could view the log, whatever else they could view. NetBox does the same; Patchbay now shows a
 * change, and an event delivery, only where the caller may view its object: its type whole, or the object
 * itself within the constraints of their view permission (a deleted object then shows no more). The list
 * still costs a constant number of statements.
 */
import crypto from 'node:crypto';
import { startTestApp, type TestApp } from '../support/test-app';
import { apiWith } from '../support/listen';
import { grant, made, newUser, type User } from './support';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestApp;
let s: { active: number; planned: number; gone: number; prefix: number; tenant: number };
const CHANGES = '/api/extras/object-changes/';
const DELIVERIES = '/api/extras/event-deliveries/';

beforeAll(async () => {
  t = await startTestApp();
  // Every write of a site, a prefix or a tenant raises an event, stored with it (never delivered here: no dispatcher runs).
  const webhook = await made(t, '/api/extras/webhooks/', { name: 'outbox', payload_url: 'https://receiver.example/' });
  await made(t, '/api/extras/event-rules/', {
    name: 'everything', content_types: ['dcim.site', 'ipam.prefix', 'tenancy.tenant'], type_create: true, type_update: true, type_delete: true,
    action_type: 'webhook', action_object_type: 'extras.webhook', action_object_id: webhook,
  });
  const active = await made(t, '/api/dcim/sites/', { name: 'Active site', slug: 'active-site', status: 'active', description: 'active-secret-ish' });
  const planned = await made(t, '/api/dcim/sites/', { name: 'Planned site', slug: 'planned-site', status: 'planned', description: 'planned-private-notes' });
  const gone = await made(t, '/api/dcim/sites/', { name: 'Gone site', slug: 'gone-site', status: 'active' });
  expect((await t.api.delete(`/api/dcim/sites/${gone}/`).set(t.auth)).status).toBe(204);
  const prefix = await made(t, '/api/ipam/prefixes/', { prefix: '10.77.0.0/16', description: 'prefix-private-notes' });
  const tenant = await made(t, '/api/tenancy/tenants/', { name: 'Tenant', slug: 'tenant' });
  expect((await t.api.patch(`/api/dcim/sites/${planned}/`).set(t.auth).send({ description: 'planned-private-notes-2' })).status).toBe(200);
  s = { active, planned, gone, prefix, tenant };
});
afterAll(async () => {
  await t.close();
});

/** [object type, object id, action] of each change a caller lists, and the count the list gives. */
async function changes(h: Record<string, string>, api = t.api, query = ''): Promise<{ count: number; seen: Array<[string, number, string]> }> {
  const res = await api.get(`${CHANGES}?limit=1000&ordering=id${query}`).set(h);
  expect(res.status).toBe(200);
  return { count: res.body.count, seen: (res.body.results as Json[]).map((c) => [c.changed_object_type, c.changed_object_id, c.action.value]) };
}

/** [object type, object id, event] of each event delivery a caller lists. */
async function deliveries(h: Record<string, string>): Promise<Array<[string, number, string]>> {
  const res = await t.api.get(`${DELIVERIES}?limit=1000&ordering=id`).set(h);
  expect(res.status).toBe(200);
  return (res.body.results as Json[]).map((d) => [d.object_type, d.object_id, d.event.value]);
}

/** A user who may view the change log and the outbox, and active sites only. */
async function activeSitesOnly(): Promise<User> {
  const u = await newUser(t);
  await grant(t, { users: [u.id], types: ['extras.objectchange', 'extras.eventdelivery'], actions: ['view'] });
  await grant(t, { users: [u.id], types: ['dcim.site'], actions: ['view'], constraints: { status: 'active' } });
  return u;
}

describe('the change log shows a change only where its object may be viewed', () => {
  test('constrained: the changes of the objects within the constraints, nothing of other types or of deleted objects', async () => {
    const u = await activeSitesOnly();
    const { count, seen } = await changes(u.h);
    expect(seen).toEqual([['dcim.site', s.active, 'create']]);
    expect(count).toBe(1);
    const all = await changes(t.auth);
    const hidden = all.seen.filter(([type, id]) => !(type === 'dcim.site' && id === s.active));
    expect(hidden.length).toBeGreaterThanOrEqual(5);
    // A hidden change is not found by id either, and nothing of its data reaches the caller.
    const planned = (await t.api.get(`${CHANGES}?changed_object_id=${s.planned}&changed_object_type=dcim.site`).set(t.auth)).body.results[0] as Json;
    expect((await t.api.get(`${CHANGES}${planned.id}/`).set(u.h)).status).toBe(404);
    const text = JSON.stringify((await t.api.get(`${CHANGES}?limit=1000`).set(u.h)).body);
    for (const word of ['planned-private-notes', 'prefix-private-notes', 'Gone site']) expect([word, text.includes(word)]).toEqual([word, false]);
  });

  test('a type viewed whole: all of its changes, the deleted object\'s included', async () => {
    const u = await newUser(t);
    await grant(t, { users: [u.id], types: ['extras.objectchange', 'dcim.site'], actions: ['view'] });
    const { seen } = await changes(u.h);
    expect(seen.map(([type]) => type)).toEqual(seen.map(() => 'dcim.site'));
    expect(seen).toEqual(expect.arrayContaining([['dcim.site', s.active, 'create'], ['dcim.site', s.planned, 'update'], ['dcim.site', s.gone, 'delete']]));
    expect(seen).toHaveLength(5);
  });

  test('no permission for any object type: an empty change log; no permission for the log: a 403', async () => {
    const logOnly = await newUser(t);
    await grant(t, { users: [logOnly.id], types: ['extras.objectchange'], actions: ['view'] });
    expect(await changes(logOnly.h)).toEqual({ count: 0, seen: [] });
    const sitesOnly = await newUser(t);
    await grant(t, { users: [sitesOnly.id], types: ['dcim.site'], actions: ['view'] });
    expect((await t.api.get(CHANGES).set(sitesOnly.h)).status).toBe(403);
  });

  test("exempt types count as viewed whole: EXEMPT_VIEW_PERMISSIONS opens their changes, and only theirs", async () => {
    const open = apiWith(t, { EXEMPT_VIEW_PERMISSIONS: 'extras.objectchange,tenancy.tenant' });
    expect((await changes({}, open)).seen).toEqual([['tenancy.tenant', s.tenant, 'create']]);
    const everything = apiWith(t, { EXEMPT_VIEW_PERMISSIONS: '*' });
    expect((await changes({}, everything)).seen).toEqual((await changes(t.auth)).seen);
  });

  test('filters and counts agree with what is shown; a list costs the same statements for 1 row as for 50', async () => {
    const u = await activeSitesOnly();
    expect(await changes(u.h, t.api, '&changed_object_type=dcim.site')).toEqual({ count: 1, seen: [['dcim.site', s.active, 'create']] });
    const statements = async (limit: number) => {
      t.queries.reset();
      expect((await t.api.get(`${CHANGES}?limit=${limit}`).set(u.h)).status).toBe(200);
      return t.queries.count;
    };
    // Warm: the first request of a user loads their permissions once (cached after).
    await statements(1);
    expect(await statements(50)).toBe(await statements(1));
  });
});

describe('the event outbox follows the same rule', () => {
  test('constrained: the events of objects within the constraints only', async () => {
    const all = await deliveries(t.auth);
    expect(all.length).toBeGreaterThanOrEqual(6);
    const u = await activeSitesOnly();
    expect(await deliveries(u.h)).toEqual([['dcim.site', s.active, 'created']]);
    const hidden = (await t.api.get(`${DELIVERIES}?object_type=ipam.prefix`).set(t.auth)).body.results[0] as Json;
    expect(hidden.data.description).toBe('prefix-private-notes');
    expect((await t.api.get(`${DELIVERIES}${hidden.id}/`).set(u.h)).status).toBe(404);
  });

  test('prefixes viewed whole: their events, and no site\'s', async () => {
    const u = await newUser(t);
    await grant(t, { users: [u.id], types: ['extras.eventdelivery', 'ipam.prefix'], actions: ['view'] });
    expect(await deliveries(u.h)).toEqual([['ipam.prefix', s.prefix, 'created']]);
  });

  test('a new object\'s events appear once the caller may view it', async () => {
    const u = await activeSitesOnly();
    const slug = `late-${crypto.randomBytes(3).toString('hex')}`;
    const late = await made(t, '/api/dcim/sites/', { name: slug, slug, status: 'planned' });
    expect((await deliveries(u.h)).filter(([, id]) => id === late)).toEqual([]);
    expect((await t.api.patch(`/api/dcim/sites/${late}/`).set(t.auth).send({ status: 'active' })).status).toBe(200);
    expect((await deliveries(u.h)).filter(([, id]) => id === late)).toEqual([['dcim.site', late, 'created'], ['dcim.site', late, 'updated']]);
  });
});
