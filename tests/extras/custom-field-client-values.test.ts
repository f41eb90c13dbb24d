/**
 * Custom field values as NetBox 3.7 takes them from clients (CustomFieldsDataField.to_internal_value, then
 * CustomField.validate): a decimal as a string Decimal() reads, a boolean as 1 or 0, an object (and each of
 * a multi-object field's) as an id, a numeric string, {"id": n} or its attributes. Stored in one form: the
 * number, true/false, the id. What NetBox refuses stays refused (an integer as a string, "true").
 */
import { startTestApp, type TestApp } from '../support/test-app';

type Json = Record<string, unknown>;
let t: TestApp;
let tenant: Json;
let other: Json;

async function made(path: string, body: Json): Promise<Json> {
  const res = await t.api.post(path).set(t.auth).send(body);
  if (res.status !== 201) throw new Error(`POST ${path} -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Json;
}

beforeAll(async () => {
  t = await startTestApp();
  const set = await made('/api/extras/custom-field-choice-sets/', { name: 'Tiers', extra_choices: [['gold', 'Gold'], ['silver', 'Silver']] });
  const field = (name: string, type: string, extra: Json = {}) => made('/api/extras/custom-fields/', { name, type, content_types: ['dcim.site'], ...extra });
  await field('ratio', 'decimal', { validation_minimum: 0, validation_maximum: 100 });
  await field('count', 'integer');
  await field('flag', 'boolean');
  await field('day', 'date');
  await field('moment', 'datetime');
  await field('link', 'url');
  await field('blob', 'json');
  await field('tier', 'select', { choice_set: set.id });
  await field('tiers', 'multiselect', { choice_set: set.id });
  await field('owner', 'object', { object_type: 'tenancy.tenant' });
  await field('owners', 'multiobject', { object_type: 'tenancy.tenant' });
  tenant = await made('/api/tenancy/tenants/', { name: 'Acme', slug: 'acme' });
  other = await made('/api/tenancy/tenants/', { name: 'Other', slug: 'other' });
});
afterAll(async () => {
  await t.close();
});

let n = 0;
async function written(custom_fields: Json): Promise<{ status: number; body: Json }> {
  n++;
  const res = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: `s${n}`, slug: `s${n}`, custom_fields });
  return { status: res.status, body: res.body as Json };
}
const stored = async (custom_fields: Json) => {
  const r = await written(custom_fields);
  if (r.status !== 201) throw new Error(`${JSON.stringify(custom_fields)} -> ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.custom_fields as Json;
};

test('a decimal as a number or as a string Decimal() reads, stored as the number, range-checked as one', async () => {
  expect((await stored({ ratio: '7.5' })).ratio).toBe(7.5);
  expect((await stored({ ratio: 7.5 })).ratio).toBe(7.5);
  expect((await stored({ ratio: ' 1e1 ' })).ratio).toBe(10);
  expect((await stored({ ratio: '+2.50' })).ratio).toBe(2.5);
  for (const bad of ['seven', 'NaN', 'Infinity', '1,5', true, [1]]) {
    expect(await written({ ratio: bad })).toEqual({ status: 400, body: { custom_fields: ["Invalid value for custom field 'ratio': Value must be a decimal."] } });
  }
  expect(await written({ ratio: '100.5' })).toEqual({ status: 400, body: { custom_fields: ["Invalid value for custom field 'ratio': Value must not exceed 100"] } });
});

test('a boolean as true/false or 1/0; "true" is refused as NetBox refuses it', async () => {
  expect((await stored({ flag: 1 })).flag).toBe(true);
  expect((await stored({ flag: 0 })).flag).toBe(false);
  expect((await stored({ flag: true })).flag).toBe(true);
  for (const bad of ['true', 2, 'yes']) {
    expect(await written({ flag: bad })).toEqual({ status: 400, body: { custom_fields: ["Invalid value for custom field 'flag': Value must be true or false."] } });
  }
});

test('an integer must be a JSON integer (type(value) is int)', async () => {
  expect((await stored({ count: 5 })).count).toBe(5);
  expect(await written({ count: '5' })).toEqual({ status: 400, body: { custom_fields: ["Invalid value for custom field 'count': Value must be an integer."] } });
});

test('dates, date-times, urls, json, selections as before', async () => {
  const cf = await stored({ day: '2024-02-29', moment: '2024-02-29 10:20:30', link: 'https://example.com/x', blob: { a: [1] }, tier: 'gold', tiers: ['silver', 'gold'] });
  expect(cf).toMatchObject({ day: '2024-02-29', moment: '2024-02-29 10:20:30', link: 'https://example.com/x', blob: { a: [1] }, tier: 'gold', tiers: ['silver', 'gold'] });
  expect((await written({ day: '2023-02-29' })).status).toBe(400);
  expect(await written({ tier: 'bronze' })).toEqual({ status: 400, body: { custom_fields: ["Invalid value for custom field 'tier': Invalid choice (bronze) for choice set Tiers."] } });
});

test('an object by id, numeric string, {"id": n} or attributes; each of a multi-object field likewise', async () => {
  // Patchbay shows an object custom field's stored id.
  for (const given of [tenant.id, String(tenant.id), { id: tenant.id }, { slug: 'acme' }]) {
    const cf = await stored({ owner: given });
    expect([given, cf.owner]).toEqual([given, tenant.id]);
  }
  const many = await stored({ owners: [{ name: 'Other' }, String(tenant.id), { id: other.id }] });
  expect(many.owners).toEqual([other.id, tenant.id, other.id]);
  expect(await written({ owner: { slug: 'nobody' } })).toEqual({ status: 400, body: { custom_fields: ["Invalid value for custom field 'owner': Related object not found using the provided attributes: {'slug': 'nobody'}"] } });
  expect((await written({ owner: '99999' })).body).toEqual({ custom_fields: ["Invalid value for custom field 'owner': object does not exist."] });
  expect((await written({ owner: 'acme' })).body).toEqual({ custom_fields: ["Invalid value for custom field 'owner': Value must be an object ID."] });
});
