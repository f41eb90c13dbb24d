import diagnostics_channel from 'node:diagnostics_channel';
import type { PreparationMessage } from '../../engine/writes/prepare-write';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * A write prepares each object once (validates and converts it: costly for a password, and every value
 * checked): when the one-statement path prepares a body and then gives way to the transactional path
 * (the write turned out not plain, a value was refused, or it deadlocked), that path takes the body as
 * prepared rather than preparing it again — unless the custom field definitions it was prepared against
 * changed meanwhile. Preparations are counted on the engine's `patchbay:prepare-write` tracing channel.
 */

let t: TestApp;
let seen: PreparationMessage[] = [];
const count = (message: unknown) => seen.push(message as PreparationMessage);

beforeAll(async () => {
  t = await startTestApp();
  diagnostics_channel.subscribe('patchbay:prepare-write', count);
});
afterAll(async () => {
  diagnostics_channel.unsubscribe('patchbay:prepare-write', count);
  await t.close();
});
beforeEach(() => {
  seen = [];
});

test('a plain create written in one statement is prepared once', async () => {
  const res = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'Plain', slug: 'plain' });
  expect(res.status).toBe(201);
  expect(seen).toEqual([{ model: 'dcim.site', mode: 'create' }]);
});

test('a create refused by a value is prepared once, and told as before', async () => {
  const res = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'Bad', slug: 'bad', status: 'nope' });
  expect([res.status, res.body]).toEqual([400, { status: ['"nope" is not a valid choice.'] }]);
  expect(seen).toEqual([{ model: 'dcim.site', mode: 'create' }]);
  expect((await t.knex.raw(`SELECT count(*)::int AS "n" FROM "dcim_site" WHERE "slug" = 'bad'`)).rows).toEqual([{ n: 0 }]);
});

test('a change refused by a value is prepared once; one of an object that does not exist is still a 404', async () => {
  const site = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'Patched', slug: 'patched' });
  seen = [];
  const res = await t.api.patch(`/api/dcim/sites/${site.body.id}/`).set(t.auth).send({ latitude: 91 });
  expect([res.status, res.body]).toEqual([400, { latitude: ['Ensure this value is less than or equal to 90.'] }]);
  expect(seen).toEqual([{ model: 'dcim.site', mode: 'patch' }]);
  seen = [];
  const missing = await t.api.patch('/api/dcim/sites/999999/').set(t.auth).send({ latitude: 91 });
  expect([missing.status, missing.body]).toEqual([404, { detail: 'Not found.' }]);
  expect(seen).toEqual([{ model: 'dcim.site', mode: 'patch' }]);
});

test('a valid write that is not plain after all (a JSON null is written on its own) is prepared once and written', async () => {
  const made = await t.api.post('/api/extras/config-templates/').set(t.auth).send({ name: 'T', template_code: 'x' });
  expect(made.status).toBe(201);
  seen = [];
  const res = await t.api.patch(`/api/extras/config-templates/${made.body.id}/`).set(t.auth).send({ environment_params: null, description: 'null params' });
  expect([res.status, res.body.environment_params, res.body.description]).toEqual([200, null, 'null params']);
  expect(seen).toEqual([{ model: 'extras.configtemplate', mode: 'patch' }]);
});

test('a body prepared against custom field definitions that changed since is prepared again, against the current ones', async () => {
  // The process reads the site's definitions (none yet) once, and keeps them.
  expect((await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'Early', slug: 'early' })).status).toBe(201);
  const cf = await t.api.post('/api/extras/custom-fields/').set(t.auth).send({ name: 'cf_needed', type: 'text', required: true, content_types: ['dcim.site'] });
  expect(cf.status).toBe(201);
  seen = [];
  const res = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'Late', slug: 'late' });
  expect([res.status, res.body]).toEqual([400, { custom_fields: ["Required field 'cf_needed' cannot be empty."] }]);
  expect(seen).toEqual([{ model: 'dcim.site', mode: 'create' }, { model: 'dcim.site', mode: 'create' }]);
  // A value refused against the old definitions is judged again against the current ones (here: accepted).
  expect((await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'Again', slug: 'again', custom_fields: { cf_needed: 'a' } })).status).toBe(201);
  const cf2 = await t.api.post('/api/extras/custom-fields/').set(t.auth).send({ name: 'cf_new', type: 'text', content_types: ['dcim.site'] });
  expect(cf2.status).toBe(201);
  seen = [];
  const late = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'Late', slug: 'late', custom_fields: { cf_needed: 'a', cf_new: 'b' } });
  expect([late.status, late.body.custom_fields]).toEqual([201, { cf_needed: 'a', cf_new: 'b' }]);
  expect(seen).toEqual([{ model: 'dcim.site', mode: 'create' }, { model: 'dcim.site', mode: 'create' }]);
});
