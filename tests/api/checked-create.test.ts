/**
 * A single create of a model whose definition has checks (an IP address: no_overlap) is written by two
 * statements in one transaction (engine/writes/checked-create.ts): the guarded INSERT with the checks'
 * locks, then the verdicts read with the representation (a later statement: its snapshot comes after the locks). The answer, the change log and the refusals are those
 * of the transactional path.
 */
import { startTestApp, type TestApp } from '../support/test-app';

type Json = Record<string, unknown>;

describe('a single create of a model with checks', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });
  const changesOf = async (id: unknown) =>
    ((await t.api.get(`/api/extras/object-changes/?changed_object_type=ipam.ipaddress&changed_object_id=${String(id)}`).set(t.auth)).body as { results: Json[] }).results;

  test('BEGIN, two statements and COMMIT; answered as the object reads back, logged once with the request id', async () => {
    // The custom field definitions are cached by the first write: what is counted is a create as it runs afterwards.
    expect((await t.api.post('/api/ipam/ip-addresses/').set(t.auth).send({ address: '10.77.0.1/24' })).status).toBe(201);
    t.queries.reset();
    // One Host for both requests: supertest gives each its own port, which URLs in the answer carry.
    const host = { Host: 'patchbay.test' };
    const res = await t.api.post('/api/ipam/ip-addresses/').set(t.auth).set(host).send({ address: '10.77.0.2/24', status: 'reserved', description: 'checked' });
    expect(res.status).toBe(201);
    expect(t.queries.log.map((q) => q.trim().split(/\s+/)[0])).toEqual(['BEGIN;', 'WITH', 'SELECT', 'COMMIT;']);
    const body = res.body as Json;
    expect(res.headers.location).toMatch(new RegExp(`/api/ipam/ip-addresses/${String(body.id)}/$`));
    const read = await t.api.get(`/api/ipam/ip-addresses/${String(body.id)}/`).set(t.auth).set(host);
    expect(body).toEqual(read.body);
    const changes = await changesOf(body.id);
    expect(changes.map((c) => [(c.action as Json).value, c.request_id])).toEqual([['create', res.headers['x-request-id']]]);
    expect((changes[0]!.postchange_data as Json).description).toBe('checked');
  });

  test('a broken check is a 400 naming the field; nothing is written or logged', async () => {
    const first = (await t.api.post('/api/ipam/ip-addresses/').set(t.auth).send({ address: '10.77.1.1/24' })).body as Json;
    const before = (await t.api.get('/api/extras/object-changes/?limit=1').set(t.auth)).body.count as number;
    const dup = await t.api.post('/api/ipam/ip-addresses/').set(t.auth).send({ address: '10.77.1.1/16' });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ address: [`Duplicate IP address found in global table: ${String(first.address)}`] });
    expect((await t.api.get('/api/ipam/ip-addresses/?address=10.77.1.1/16').set(t.auth)).body.count).toBe(0);
    expect((await t.api.get('/api/extras/object-changes/?limit=1').set(t.auth)).body.count).toBe(before);
  });

  test('a value the database refuses is a 400 naming the field, as on the transactional path', async () => {
    const res = await t.api.post('/api/ipam/ip-addresses/').set(t.auth).send({ address: '10.77.2.1/24', tenant: 999999 });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body as Json)).toEqual(['tenant']);
  });
});
