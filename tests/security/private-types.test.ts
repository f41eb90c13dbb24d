/**
 * Section 3 of the attacker's trial, first finding: with EXEMPT_VIEW_PERMISSIONS=* anybody, logged in or
 * not, read every webhook's secret and additional headers (an Authorization header sent to the receiver).
 * Now '*' never opens a type its definition marks private (users, groups, permissions, tokens, webhooks),
 * as NetBox's EXEMPT_EXCLUDE_MODELS; naming one explicitly opens it, as in NetBox; and a webhook's secret
 * and additional headers (`shown_with: change`) show only to callers who may change that webhook, whose
 * filters on them match nothing for anyone else. A token's last_used can no longer be written.
 */
import path from 'node:path';
import { startTestApp, type TestApp } from '../support/test-app';
import { apiWith } from '../support/listen';
import { loadDefinitions, type LoadedDefinition } from '../../engine/definitions/load-definitions';
import { resolveRegistry } from '../../engine/definitions/resolve-registry';
import { grant, made, newUser, stringsIn, type User } from './support';

const SCHEMA = path.resolve(__dirname, '..', '..', 'schema');

let t: TestApp;
let hooks: { alpha: number; beta: number };
const SECRET = 'hmac-s3cret-value';
const HEADERS = 'Authorization: Bearer receiver-token-0123';
const WEBHOOKS = '/api/extras/webhooks/';

beforeAll(async () => {
  t = await startTestApp();
  hooks = {
    alpha: await made(t, WEBHOOKS, { name: 'alpha', payload_url: 'https://receiver.example/a', secret: SECRET, additional_headers: HEADERS }),
    beta: await made(t, WEBHOOKS, { name: 'beta', payload_url: 'https://receiver.example/b', secret: `${SECRET}-beta`, additional_headers: `${HEADERS}-beta` }),
  };
});
afterAll(async () => {
  await t.close();
});

/** The webhooks a caller lists, each as the keys it shows besides the usual ones: [name, secret, additional_headers]. */
async function shown(api: ReturnType<typeof apiWith>, h: Record<string, string>, query = ''): Promise<Array<[string, unknown, unknown]>> {
  const res = await api.get(`${WEBHOOKS}?ordering=name${query}`).set(h);
  expect([query, res.status]).toEqual([query, 200]);
  return (res.body.results as Array<Record<string, unknown>>).map((w) => [w.name as string, w.secret, w.additional_headers]);
}

describe("EXEMPT_VIEW_PERMISSIONS='*' leaves private types out", () => {
  test('anonymous and permissionless callers read no webhook, user, group, permission or token', async () => {
    const open = apiWith(t, { EXEMPT_VIEW_PERMISSIONS: '*' });
    const nobody = await newUser(t);
    for (const path of [WEBHOOKS, `${WEBHOOKS}${hooks.alpha}/`, '/api/users/users/', '/api/users/groups/', '/api/users/permissions/', '/api/users/tokens/']) {
      const anon = await open.get(path);
      expect([path, anon.status]).toEqual([path, 403]);
      expect(anon.body).toEqual({ detail: 'Authentication credentials were not provided.' });
      expect(JSON.stringify(anon.body)).not.toContain(SECRET);
    }
    for (const path of [WEBHOOKS, '/api/users/users/', '/api/users/groups/', '/api/users/permissions/']) {
      expect([path, (await open.get(path).set(nobody.h)).status]).toEqual([path, 403]);
    }
    // Inventory types stay open, as '*' says.
    expect((await open.get('/api/dcim/sites/')).status).toBe(200);
  });

  test('no anonymous list under * holds a secret or a header of any webhook', async () => {
    const open = apiWith(t, { EXEMPT_VIEW_PERMISSIONS: '*' });
    for (const m of t.registry.byPath.values()) {
      const res = await open.get(`/api/${m.app}/${m.path}/?limit=0`);
      const leaked = stringsIn(res.body).some((s) => s.includes(SECRET) || s.includes('receiver-token'));
      expect([m.label, leaked]).toEqual([m.label, false]);
    }
  });

  test('naming a private type is the administrator\'s decision: it opens, but its concealed fields stay concealed', async () => {
    const named = apiWith(t, { EXEMPT_VIEW_PERMISSIONS: '*,extras.webhook' });
    expect(await shown(named, {})).toEqual([['alpha', undefined, undefined], ['beta', undefined, undefined]]);
    const detail = await named.get(`${WEBHOOKS}${hooks.alpha}/`);
    expect(detail.status).toBe(200);
    expect(Object.keys(detail.body)).not.toContain('secret');
    expect(Object.keys(detail.body)).not.toContain('additional_headers');
    expect(detail.body.payload_url).toBe('https://receiver.example/a');
  });
});

describe("a webhook's secret and additional headers show only to callers who may change it", () => {
  let viewer: User;
  let changer: User;
  let alphaOnly: User;

  beforeAll(async () => {
    viewer = await newUser(t);
    await grant(t, { users: [viewer.id], types: ['extras.webhook'], actions: ['view'] });
    changer = await newUser(t);
    await grant(t, { users: [changer.id], types: ['extras.webhook'], actions: ['view', 'change'] });
    alphaOnly = await newUser(t);
    await grant(t, { users: [alphaOnly.id], types: ['extras.webhook'], actions: ['view'] });
    await grant(t, { users: [alphaOnly.id], types: ['extras.webhook'], actions: ['change'], constraints: { name: 'alpha' } });
  });

  test('view alone: both fields left out, as a token key is when it may not be shown', async () => {
    expect(await shown(t.api, viewer.h)).toEqual([['alpha', undefined, undefined], ['beta', undefined, undefined]]);
    const detail = await t.api.get(`${WEBHOOKS}${hooks.alpha}/`).set(viewer.h);
    expect(detail.body).not.toHaveProperty('secret');
    expect(detail.body).not.toHaveProperty('additional_headers');
    expect(detail.body.name).toBe('alpha');
  });

  test('change: both shown; under a constrained change permission, on the webhooks it covers only', async () => {
    expect(await shown(t.api, changer.h)).toEqual([['alpha', SECRET, HEADERS], ['beta', `${SECRET}-beta`, `${HEADERS}-beta`]]);
    expect(await shown(t.api, alphaOnly.h)).toEqual([['alpha', SECRET, HEADERS], ['beta', undefined, undefined]]);
    expect((await t.api.get(`${WEBHOOKS}${hooks.beta}/`).set(alphaOnly.h)).body).not.toHaveProperty('secret');
    expect((await t.api.get(`${WEBHOOKS}${hooks.alpha}/`).set(alphaOnly.h)).body.secret).toBe(SECRET);
    expect(await shown(t.api, t.auth)).toEqual([['alpha', SECRET, HEADERS], ['beta', `${SECRET}-beta`, `${HEADERS}-beta`]]);
  });

  test('a change answers with them to the caller who made it', async () => {
    const res = await t.api.patch(`${WEBHOOKS}${hooks.alpha}/`).set(alphaOnly.h).send({ description: 'patched' });
    expect(res.status).toBe(200);
    expect([res.body.secret, res.body.additional_headers]).toEqual([SECRET, HEADERS]);
  });

  test('filters on them tell nothing to a caller who may not see them; a caller who may, filters by the whole value', async () => {
    for (const query of [`&secret=${SECRET}`, `&additional_headers=${encodeURIComponent(HEADERS)}`]) {
      expect(await shown(t.api, viewer.h, query)).toEqual([]);
      expect((await shown(t.api, changer.h, query)).map(([name]) => name)).toEqual(['alpha']);
    }
    // alphaOnly may see beta's secret through no filter either.
    expect(await shown(t.api, alphaOnly.h, `&secret=${SECRET}-beta`)).toEqual([]);
    // No lookup but the exact one, for anyone: a substring or a prefix would tell the value a piece at a time.
    const all = ['alpha', 'beta'];
    for (const query of ['&additional_headers__ic=receiver-token', '&additional_headers__isw=Auth', '&secret__isw=h', '&additional_headers__empty=true']) {
      expect([query, (await shown(t.api, changer.h, query)).map(([name]) => name)]).toEqual([query, all]);
    }
    expect(await shown(t.api, changer.h, '&q=receiver-token')).toEqual([]);
    // Ordering by them is ignored (the default order).
    expect((await shown(t.api, changer.h, '&ordering=-additional_headers')).map(([name]) => name)).toEqual(all);
  });

  test('the OpenAPI document does not call them required', async () => {
    const doc = (await t.api.get('/api/schema/?format=json').set(t.auth)).body;
    const required = doc.components.schemas.ExtrasWebhook.required as string[];
    expect(required).not.toContain('secret');
    expect(required).not.toContain('additional_headers');
    expect(required).toContain('payload_url');
  });
});

describe("a token's last_used is read-only through the API", () => {
  test('a write of last_used is ignored, on create and on change, by the owner and by a superuser', async () => {
    const u = await newUser(t);
    const created = await t.api.post('/api/users/tokens/').set(u.h).send({ description: 'x', last_used: '2020-01-01T00:00:00Z' });
    expect(created.status).toBe(201);
    expect(created.body.last_used).toBeNull();
    for (const h of [u.h, t.auth]) {
      const changed = await t.api.patch(`/api/users/tokens/${created.body.id}/`).set(h).send({ last_used: '2099-01-01T00:00:00Z', description: 'y' });
      expect(changed.status).toBe(200);
      expect([changed.body.last_used, changed.body.description]).toEqual([null, 'y']);
    }
    const stored = await t.knex.raw(`SELECT "last_used" FROM "users_token" WHERE "id" = ?`, [created.body.id]);
    expect((stored.rows as Array<{ last_used: Date | null }>)[0]!.last_used).toBeNull();
  });

  test('the OpenAPI request schema does not offer it', async () => {
    const doc = (await t.api.get('/api/schema/?format=json').set(t.auth)).body;
    const names = Object.keys(doc.components.schemas).filter((n) => /Token/.test(n) && /Request/.test(n));
    expect(names.length).toBeGreaterThan(0);
    for (const n of names) expect([n, 'last_used' in (doc.components.schemas[n].properties ?? {})]).toEqual([n, false]);
  });
});

describe('the definition language keeps a shown_with field concealed', () => {
  const patched = (label: string, change: (def: Record<string, unknown>) => void): LoadedDefinition[] => {
    const all = loadDefinitions(SCHEMA).map((l) => ({ ...l, def: JSON.parse(JSON.stringify(l.def)) }));
    change(all.find((l) => `${l.def.app}.${l.def.model}` === label)!.def as unknown as Record<string, unknown>);
    return all;
  };
  const fields = (def: Record<string, unknown>) => def.fields as Record<string, Record<string, unknown>>;

  test.each([
    ['searched', (d: Record<string, unknown>) => (d.search = ['additional_headers']), /"additional_headers" is shown only with an action: it is never searched/],
    ['ordered by', (d: Record<string, unknown>) => (d.ordering = ['additional_headers']), /"additional_headers" is shown only with an action: it is never ordered by/],
    ['in the brief form', (d: Record<string, unknown>) => (d.brief = ['id', 'url', 'display', 'name', 'additional_headers']), /never in the brief form/],
    ['in the display', (d: Record<string, unknown>) => (d.display = '{name} {additional_headers}'), /"\{additional_headers\}" is concealed/],
    ['trigram-indexed', (d: Record<string, unknown>) => { fields(d).ca_file_path = { type: 'string', max_length: 10, index: 'trigram', shown_with: 'change' }; }, /never searched: it takes no trigram index/],
  ])('%s', (_what, change, message) => {
    expect(() => resolveRegistry(patched('extras.webhook', change))).toThrow(message);
  });

  test('view_through names a generic relation; media_type is for strings', () => {
    expect(() => resolveRegistry(patched('extras.objectchange', (d) => (d.view_through = 'user')))).toThrow(/"user" is not a generic relation of extras.objectchange/);
    expect(() => resolveRegistry(patched('extras.exporttemplate', (d) => (fields(d).as_attachment!.media_type = true)))).toThrow(/media_type is for single string fields/);
  });
});
