/**
 * Finding 7: ReDoS through a custom field's validation_regex — an admin-defined `^(\w+\s?)*$` fed 28
 * characters blocked every request for 2 s, doubling with each character. Patterns now run on RE2's
 * linear-time engine. The inputs below would take a backtracking engine longer than the test timeout
 * (2^40 steps and more): on the old code these tests time out; now they answer.
 */
import { startTestApp, type TestApp } from '../support/test-app';
import { made } from './support';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
  expect((await t.api.post('/api/extras/custom-fields/').set(t.auth).send({ name: 'words', type: 'text', content_types: ['dcim.site'], validation_regex: '^(\\w+\\s?)*$' })).status).toBe(201);
});
afterAll(async () => {
  await t.close();
});

test.each([40, 5000, 500_000])('an exponential-time pattern against %i non-matching characters is refused as not matching', async (n) => {
  const res = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: `Site ${n}`, slug: `site-${n}`, custom_fields: { words: `${'a'.repeat(n)}!` } });
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ custom_fields: ["Invalid value for custom field 'words': Value must match regex '^(\\w+\\s?)*$'"] });
}, 20_000);

test('a matching value is accepted, as Python re.search would', async () => {
  const res = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'Words', slug: 'words', custom_fields: { words: 'two words' } });
  expect([res.status, res.body.custom_fields]).toEqual([201, { words: 'two words' }]);
});

test('a pattern RE2 cannot run (a backreference, a lookahead) is refused when the custom field is written', async () => {
  for (const pattern of ['(a)\\1', '(?=a)b', '(']) {
    const res = await t.api.post('/api/extras/custom-fields/').set(t.auth).send({ name: `bad_${pattern.length}`, content_types: ['dcim.site'], validation_regex: pattern });
    expect([pattern, res.status, Object.keys(res.body)]).toEqual([pattern, 400, ['validation_regex']]);
  }
  const id = await made(t, '/api/extras/custom-fields/', { name: 'later', content_types: ['dcim.site'] });
  expect((await t.api.patch(`/api/extras/custom-fields/${id}/`).set(t.auth).send({ validation_regex: '(a)\\1' })).status).toBe(400);
});
