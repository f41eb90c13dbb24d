/**
 * Saved filters' usable (NetBox's filter_usable): true gives the enabled filters that are shared or the
 * caller's own; false gives the others. It depends on who asks, so each caller gets its own answer.
 */
import { startTestApp, type TestApp } from '../support/test-app';

const LIST = '/api/extras/saved-filters/';

describe('saved filters ?usable=', () => {
  let t: TestApp;
  let mine: string;
  const names = async (token: string, q: string) => {
    const res = await t.api.get(`${LIST}?${q}&ordering=name`).set({ Authorization: `Token ${token}` });
    expect(res.status).toBe(200);
    return res.body.results.map((r: { name: string }) => r.name);
  };

  beforeAll(async () => {
    // Anyone may read saved filters here, so a plain user's view is the filter's doing alone.
    t = await startTestApp({ env: { EXEMPT_VIEW_PERMISSIONS: '*' } });
    mine = await t.makeToken({ username: 'alice' });
    const alice = (await t.knex.raw(`SELECT "id" FROM "users_user" WHERE "username" = 'alice'`)).rows[0].id as number;
    const make = async (name: string, extra: Record<string, unknown>) => {
      const res = await t.api.post(LIST).set(t.auth).send({ name, slug: name, content_types: ['dcim.site'], parameters: { status: ['active'] }, ...extra });
      expect(res.status).toBe(201);
    };
    await make('a-shared', { shared: true });
    await make('b-alices-private', { shared: false, user: alice });
    await make('c-nobodys-private', { shared: false });
    await make('d-alices-disabled', { shared: true, enabled: false, user: alice });
  });
  afterAll(async () => t?.close());

  test('the owner uses shared filters and their own enabled ones', async () => {
    expect(await names(mine, 'usable=true')).toEqual(['a-shared', 'b-alices-private']);
    expect(await names(mine, 'usable=false')).toEqual(['c-nobodys-private', 'd-alices-disabled']);
  });

  test('another user uses the shared ones only', async () => {
    expect(await names(t.token, 'usable=true')).toEqual(['a-shared']);
    expect(await names(t.token, 'usable=false')).toEqual(['b-alices-private', 'c-nobodys-private', 'd-alices-disabled']);
  });

  test('a value that is not a boolean is a 400 naming the filter', async () => {
    const res = await t.api.get(`${LIST}?usable=maybe`).set(t.auth);
    expect(res.status).toBe(400);
    expect(Object.keys(res.body)).toEqual(['usable']);
  });
});
