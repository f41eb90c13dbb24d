/**
 * The document cannot drift from the behaviour: for every list endpoint the OpenAPI document declares,
 * real objects are created through the API and every answer (create, list, brief list, detail, brief
 * detail, update, partial update, bulk update, delete, and the errors) is validated with ajv (JSON
 * Schema 2020-12, OpenAPI 3.1's dialect) against the schema the document declares for it.
 */
import path from 'node:path';
import { loadRegistry } from '../../engine/boot';
import { buildOpenApiDocument } from '../../engine/openapi/openapi-document';
import { modelSchemaNames } from '../../engine/openapi/component-names';
import type { ResolvedModel } from '../../engine/definitions/registry-types';
import { startTestApp, type TestApp } from '../support/test-app';
import { apiWith } from '../support/listen';
import { DocumentValidator, errorResponsePointer, pointer, requestPointer, responsePointer, type Json, type OpenApi } from './openapi-support';
import { ObjectFactory } from './object-factory';
import { sendObject, takesFiles } from '../support/send-object';
import { catalogueTest, describeEach, isSelected } from '../support/selected-types';

// The walk is planned from the document the generator makes of schema/ (the served one is checked to be the same).
const registry = loadRegistry(path.resolve(__dirname, '..', '..', 'schema'));
const planned = buildOpenApiDocument(registry, 'test') as unknown as OpenApi;
// Object types' lists: an application's view or a detail action answering a list is checked by its own tests.
const allListPaths = Object.entries(planned.paths)
  .filter(([, item]) => String((item.get as Json | undefined)?.operationId ?? '').endsWith('_list'))
  .map(([p]) => p)
  .filter((p) => registry.byPath.has(p.split('/').slice(2, 4).join('/')) && p.split('/').length === 5);
// With types selected (npm test -- --types), only their lists are walked.
const listPaths = allListPaths.filter((p) => isSelected(registry.byPath.get(p.split('/').slice(2, 4).join('/'))!.label));

let t: TestApp;
let doc: OpenApi;
let v: DocumentValidator;
let factory: ObjectFactory;
const notCreated: string[] = [];

beforeAll(async () => {
  t = await startTestApp();
  const r = await t.api.get('/api/schema/?format=json');
  expect(r.status).toBe(200);
  doc = JSON.parse(r.text) as OpenApi;
  v = new DocumentValidator(doc);
  factory = new ObjectFactory(t);
});
afterAll(async () => {
  await t?.close();
});

function modelOf(listPath: string): ResolvedModel {
  const [, , app, p] = listPath.split('/');
  return t.registry.byPath.get(`${app}/${p}`)!;
}

const schemaOf = (name: string) => pointer('components', 'schemas', name);

test('the served document is the one generated from schema/', () => {
  expect(doc).toEqual(JSON.parse(JSON.stringify(planned)));
  expect(allListPaths.length).toBe(t.registry.byPath.size);
});

describeEach(listPaths.map((p) => [p] as const))('%s', (listPath) => {
  test('real responses validate against the declared schemas', async () => {
    const model = modelOf(listPath);
    const detailPath = `${listPath}{id}/`;
    const ops = doc.paths[listPath]!;
    const n = modelSchemaNames(model);
    const problems: string[] = [];
    const check = (what: string, at: string | undefined, value: unknown) => {
      if (!at) return problems.push(`${what}: no schema declared`);
      const errors = v.errors(at, value);
      if (errors.length) problems.push(`${what} does not match ${at}:\n    ${errors.join('\n    ')}\n    value: ${JSON.stringify(value).slice(0, 1500)}`);
    };
    const url = (id: number | string, query = '') => `${listPath}${id}/${query}`;

    // Create: the bodies sent are valid per the documented request schema, the answer per the 201 schema.
    // A type with image fields is sent as a form with its files, checked against the documented form.
    const files = takesFiles(model);
    const sentAs = (body: Json, method: string, p: string) => (files
      ? [pointer('paths', p, method, 'requestBody', 'content', 'multipart/form-data', 'schema'), { ...body, ...Object.fromEntries(model.fieldList.filter((f) => f.kind === 'image').map((f) => [f.name, 'file'])) }] as const
      : [requestPointer(p, method), body] as const);
    let id: number | null = null;
    for (const body of ops.post ? await factory.bodiesFor(model) : []) {
      check('create request body', ...sentAs(body, 'post', listPath));
      const r = await sendObject(t, 'post', listPath, model, body);
      if (r.status === 201) {
        check('POST 201', responsePointer(listPath, 'post', 201), r.body);
        check('POST 201 (full form)', schemaOf(n.full), r.body);
        id = r.body.id as number;
        factory.remember(model, body, id);
        break;
      }
      check(`POST ${r.status}`, errorResponsePointer(doc, listPath, 'post', r.status), r.body);
      factory.failures.set(model.label, { status: r.status, body: r.body, sent: body });
    }
    // The bodies may name a shared object this one cannot also use (a module bay holding a module): the factory retries with fresh ones.
    if (id === null && ops.post) id = await factory.make(model, true);
    if (id === null && ops.post) notCreated.push(`${model.label}: ${JSON.stringify(factory.failures.get(model.label) ?? 'no body could be made')}`);

    // Lists, full and brief.
    const list = await t.api.get(listPath).set(t.auth);
    expect(list.status).toBe(200);
    check('GET list', responsePointer(listPath, 'get', 200), list.body);
    check('GET list (paginated full form)', schemaOf(n.list), list.body);
    const brief = await t.api.get(`${listPath}?brief=1`).set(t.auth);
    expect(brief.status).toBe(200);
    check('GET list brief=1', responsePointer(listPath, 'get', 200), brief.body);
    check('GET list brief=1 (paginated brief form)', schemaOf(n.briefList), brief.body);
    const paged = await t.api.get(`${listPath}?limit=1&offset=0`).set(t.auth);
    check('GET list limit=1', responsePointer(listPath, 'get', 200), paged.body);
    if (id !== null) expect(list.body.count).toBeGreaterThan(0);
    id ??= (list.body.results as Json[])[0]?.id as number | undefined ?? null;

    if (id !== null) {
      const one = await t.api.get(url(id)).set(t.auth);
      expect(one.status).toBe(200);
      check('GET detail', responsePointer(detailPath, 'get', 200), one.body);
      check('GET detail (full form)', schemaOf(n.full), one.body);
      const oneBrief = await t.api.get(url(id, '?brief=1')).set(t.auth);
      check('GET detail brief=1', responsePointer(detailPath, 'get', 200), oneBrief.body);
      check('GET detail brief=1 (brief form)', schemaOf(n.brief), oneBrief.body);
    }
    if (id !== null && ops.patch) {
      // Updates answer with the full form.
      const patched = await t.api.patch(url(id)).set(t.auth).send({});
      expect(patched.status).toBe(200);
      check('PATCH detail', responsePointer(detailPath, 'patch', 200), patched.body);
      const bulk = await t.api.patch(listPath).set(t.auth).send([{ id }]);
      expect(bulk.status).toBe(200);
      check('bulk PATCH request', requestPointer(listPath, 'patch'), [{ id }]);
      check('bulk PATCH', responsePointer(listPath, 'patch', 200), bulk.body);
      const sent = factory.bodies.get(model.label);
      if (sent) {
        check('PUT request', ...sentAs(sent, 'put', detailPath));
        const put = await sendObject(t, 'put', url(id), model, sent);
        if (put.status === 200) check('PUT detail', responsePointer(detailPath, 'put', 200), put.body);
        else check(`PUT ${put.status}`, errorResponsePointer(doc, detailPath, 'put', put.status), put.body);
        const bulkPut = await t.api.put(listPath).set(t.auth).send([{ ...sent, id }]);
        check('bulk PUT request', requestPointer(listPath, 'put'), [{ ...sent, id }]);
        if (bulkPut.status === 200) check('bulk PUT', responsePointer(listPath, 'put', 200), bulkPut.body);
        else check(`bulk PUT ${bulkPut.status}`, errorResponsePointer(doc, listPath, 'put', bulkPut.status), bulkPut.body);
      }
    }

    // Deletes: a fresh object each way, 204 and no body.
    if (id !== null && ops.delete) {
      const single = await factory.make(model, true);
      if (single !== null) {
        const del = await t.api.delete(url(single)).set(t.auth);
        expect([204, 409]).toContain(del.status);
        if (del.status === 204) expect(del.text).toBe('');
        else check('DELETE 409', errorResponsePointer(doc, detailPath, 'delete', 409), del.body);
      }
      const other = await factory.make(model, true);
      if (other !== null) {
        check('bulk DELETE request', requestPointer(listPath, 'delete'), [{ id: other }]);
        const del = await t.api.delete(listPath).set(t.auth).send([{ id: other }]);
        expect([204, 409]).toContain(del.status);
      }
    }

    // Errors, each against the response the operation declares for its status.
    const missing = await t.api.get(url(999999999)).set(t.auth);
    expect(missing.status).toBe(404);
    check('GET detail 404', errorResponsePointer(doc, detailPath, 'get', 404), missing.body);
    const badFilter = await t.api.get(`${listPath}?id=not-a-number`).set(t.auth);
    expect(badFilter.status).toBe(400);
    check('GET list 400', errorResponsePointer(doc, listPath, 'get', 400), badFilter.body);
    if (ops.post) {
      const empty = await t.api.post(listPath).set(t.auth).send([]);
      expect(empty.status).toBe(400);
      check('POST [] 400', errorResponsePointer(doc, listPath, 'post', 400), empty.body);
      const wrongType = await t.api.post(listPath).set(t.auth).set('Content-Type', 'text/plain').send('name=x');
      expect(wrongType.status).toBe(415);
      check('POST 415', errorResponsePointer(doc, listPath, 'post', 415), wrongType.body);
      const anonymous = await t.api.post(listPath).send({});
      expect(anonymous.status).toBe(403);
      check('POST anonymous 403', errorResponsePointer(doc, listPath, 'post', 403), anonymous.body);
    } else {
      // Not documented, not served: a read-only type refuses writes whoever asks.
      expect((await t.api.post(listPath).set(t.auth).send({})).status).toBe(405);
    }
    if (id !== null && ops.patch) {
      const invalid = await t.api.patch(url(id)).set(t.auth).send({ id: 'x', ...Object.fromEntries(Object.keys(factory.bodies.get(model.label) ?? {}).slice(0, 1).map((k) => [k, { bogus: [] }])) });
      if (invalid.status === 400) check('PATCH 400', errorResponsePointer(doc, detailPath, 'patch', 400), invalid.body);
    }

    // The methods the engine allows are the ones documented (plus HEAD and OPTIONS).
    for (const [p, item] of [[listPath, ops], [detailPath, doc.paths[detailPath]!]] as const) {
      const documented = Object.keys(item).filter((k) => ['get', 'post', 'put', 'patch', 'delete'].includes(k)).map((k) => k.toUpperCase());
      const r = await t.api.propfind(p.replace('{id}', String(id ?? 1))).set(t.auth);
      expect(r.status).toBe(405);
      const allowed = String(r.headers.allow).split(',').map((s) => s.trim()).filter((m) => m !== 'HEAD' && m !== 'OPTIONS');
      expect(allowed.sort()).toEqual(documented.sort());
    }

    expect(problems).toEqual([]);
  });
});

test('every object type could be created from its documented request schema', () => {
  expect(notCreated).toEqual([]);
});

catalogueTest('the roots and the status answer as documented, and allow the methods documented', async () => {
  const problems: string[] = [];
  for (const [p, item] of Object.entries(doc.paths)) {
    const get = item.get as Json | undefined;
    if (!get || p.includes('{') || String(get.operationId).endsWith('_list') || p === '/api/schema/') continue;
    const r = await t.api.get(p).set(t.auth);
    expect(r.status).toBe(200);
    const errors = v.errors(responsePointer(p, 'get', 200), r.body);
    if (errors.length) problems.push(`${p}: ${errors.join('; ')}`);
    const refused = await t.api.post(p).set(t.auth).send({});
    expect([p, refused.status]).toEqual([p, 405]);
    const allowed = String(refused.headers.allow).split(',').map((m) => m.trim()).filter((m) => m !== 'HEAD' && m !== 'OPTIONS');
    expect([p, allowed]).toEqual([p, Object.keys(item).filter((k) => ['get', 'post', 'put', 'patch', 'delete'].includes(k)).map((k) => k.toUpperCase())]);
  }
  expect(problems).toEqual([]);
});

catalogueTest('token provisioning answers as documented', async () => {
  const token = t.registry.roles.get('token')!;
  const name = Object.entries(token.def.list_actions ?? {}).find(([, fn]) => fn === 'provision_token')?.[0];
  expect(name).toBeDefined();
  const provision = `/api/${token.app}/${token.path}/${name}/`;
  expect(doc.paths[provision]?.post).toBeDefined();
  const bad = await t.api.post(provision).send({ username: 'nobody', password: 'wrong' });
  expect(bad.status).toBe(403);
  expect(v.errors(errorResponsePointer(doc, provision, 'post', 403)!, bad.body)).toEqual([]);
  const missing = await t.api.post(provision).send({ username: 'nobody' });
  expect(missing.status).toBe(400);
  expect(v.errors(errorResponsePointer(doc, provision, 'post', 400)!, missing.body)).toEqual([]);
  const user = await t.api.post('/api/users/users/').set(t.auth).send({ username: 'provisioned', password: 'Correct-horse-9' });
  expect(user.status).toBe(201);
  const credentials = { username: 'provisioned', password: 'Correct-horse-9' };
  expect(v.errors(requestPointer(provision, 'post'), credentials)).toEqual([]);
  const good = await t.api.post(provision).send(credentials);
  expect(good.status).toBe(201);
  expect(v.errors(responsePointer(provision, 'post', 201), good.body)).toEqual([]);
  const get = await t.api.get(provision);
  expect(get.status).toBe(405);
  expect(get.headers.allow).toBe('POST');
});

catalogueTest('with ALLOW_TOKEN_RETRIEVAL off, tokens (their key withheld) still match the documented schema', async () => {
  const api = apiWith(t, { ALLOW_TOKEN_RETRIEVAL: 'false' });
  const token = t.registry.roles.get('token')!;
  const list = await api.get(`/api/${token.app}/${token.path}/`).set(t.auth);
  expect(list.status).toBe(200);
  expect((list.body.results as Json[]).length).toBeGreaterThan(0);
  expect((list.body.results as Json[])[0]).not.toHaveProperty('key');
  expect(v.errors(responsePointer(`/api/${token.app}/${token.path}/`, 'get', 200), list.body)).toEqual([]);
});
