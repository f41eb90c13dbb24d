/**
 * STRICT_FILTERING: off (the default, as NetBox), a list ignores a parameter that names no filter; on, such
 * a parameter is a 400 naming it, while the parameters that shape the response and the known filters,
 * custom fields included, work as before.
 */
import { startTestApp, type TestApp } from '../support/test-app';

const VLANS = '/api/ipam/vlans/';

async function seed(t: TestApp): Promise<void> {
  for (const [vid, name] of [[10, 'Servers'], [20, 'Clients']] as const) {
    const res = await t.api.post(VLANS).set(t.auth).send({ vid, name, status: 'active' });
    expect(res.status).toBe(201);
  }
  const cf = await t.api.post('/api/extras/custom-fields/').set(t.auth).send({ name: 'capacity', type: 'integer', content_types: ['ipam.vlan'] });
  expect(cf.status).toBe(201);
}

describe('STRICT_FILTERING off (default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    await seed(t);
  });
  afterAll(async () => t?.close());

  test('unknown filters, lookups and custom fields are ignored', async () => {
    expect(t.config.strictFiltering).toBe(false);
    const res = await t.api.get(`${VLANS}?stauts=active&vid__bogus=1&cf_nosuch=1&cf_capacity__ic=3`).set(t.auth);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(2);
  });
});

describe('STRICT_FILTERING=true', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { STRICT_FILTERING: 'true' } });
    await seed(t);
  });
  afterAll(async () => t?.close());

  const message = (p: string) => [`Unknown filter: ${p} is not a filter of this list (STRICT_FILTERING is on).`];

  test('a parameter that names no filter is a 400 naming it', async () => {
    const res = await t.api.get(`${VLANS}?stauts=active`).set(t.auth);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ stauts: message('stauts') });
  });

  test('an unknown lookup of a known filter, and unknown custom field filters, are each named', async () => {
    const res = await t.api.get(`${VLANS}?vid__bogus=1&cf_nosuch=1&cf_capacity__ic=3&cf_bad-name=1&vid=10`).set(t.auth);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      vid__bogus: message('vid__bogus'),
      cf_nosuch: message('cf_nosuch'),
      'cf_capacity__ic': message('cf_capacity__ic'),
      'cf_bad-name': message('cf_bad-name'),
    });
  });

  test('known filters, custom fields and the parameters that shape the response still work', async () => {
    const q = 'vid=10&vid__gte=1&status=active&cf_capacity__empty=true&q=serv&ordering=-vid&limit=5&offset=0&brief=1&exclude=tags&format=json';
    const res = await t.api.get(`${VLANS}?${q}`).set(t.auth);
    expect(res.status).toBe(200);
    expect(res.body.results.map((v: { name: string }) => v.name)).toEqual(['Servers']);
  });

  test('a saved filter brought in by ?filter= is checked like the query string', async () => {
    const saved = await t.api.post('/api/extras/saved-filters/').set(t.auth)
      .send({ name: 'typo', slug: 'typo', content_types: ['ipam.vlan'], parameters: { stauts: ['active'] }, shared: true });
    expect(saved.status).toBe(201);
    const res = await t.api.get(`${VLANS}?filter=typo`).set(t.auth);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ stauts: message('stauts') });
  });
});
