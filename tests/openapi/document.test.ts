/**
 * The OpenAPI document at /api/schema/: a valid OpenAPI 3.1 document (checked by an OpenAPI validator
 * library), every $ref resolving, unique operationIds, every endpoint, filter and request schema of
 * the engine in it, served as JSON or YAML; and Swagger UI served from Patchbay itself at /api/docs/.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import YAML from 'yaml';
import { filterTable } from '../../engine/filters/filter-table';
import { modelSchemaNames, operationPrefix } from '../../engine/openapi/component-names';
import { isDocumentedAction } from '../../engine/openapi/list-action-paths';
import { requestSchema } from '../../engine/validation/request-schema';
import { startTestApp, type TestApp } from '../support/test-app';
import { allRefs, resolvePointer, validateOpenApi, type Json, type OpenApi } from './openapi-support';

let t: TestApp;
let doc: OpenApi;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

beforeAll(async () => {
  t = await startTestApp();
  const r = await t.api.get('/api/schema/');
  expect(r.status).toBe(200);
  doc = JSON.parse(r.text) as OpenApi;
});
afterAll(async () => {
  await t?.close();
});

function operations(): Array<{ path: string; method: string; op: Json }> {
  const out: Array<{ path: string; method: string; op: Json }> = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) if (item[method]) out.push({ path, method, op: item[method] as Json });
  }
  return out;
}

describe('the document', () => {
  test('is valid OpenAPI 3.1 according to an OpenAPI validator', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await validateOpenApi(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  test('every $ref resolves', () => {
    const refs = allRefs(doc);
    expect(refs.length).toBeGreaterThan(100);
    const broken = refs.filter(({ ref }) => resolvePointer(doc, ref) === undefined);
    expect(broken).toEqual([]);
  });

  test('every operation has an operationId, unique across the document, and a declared tag', () => {
    const ops = operations();
    const ids = ops.map(({ op }) => op.operationId as string);
    expect(ids.every((id) => typeof id === 'string' && /^[A-Za-z0-9_]+$/.test(id))).toBe(true);
    const dupes = ids.filter((id, i) => ids.indexOf(id) !== i);
    expect(dupes).toEqual([]);
    const tags = new Set((doc.tags as Array<{ name: string }>).map((x) => x.name));
    expect(ops.filter(({ op }) => !(op.tags as string[]).every((tag) => tags.has(tag))).map(({ op }) => op.operationId)).toEqual([]);
  });

  test('every component schema compiles as JSON Schema 2020-12 (strict)', () => {
    const ajv = new Ajv2020({ strict: true, strictTypes: false, allErrors: true });
    addFormats(ajv);
    ajv.addKeyword('components');
    ajv.addSchema({ $id: 'urn:patchbay:openapi', components: { schemas: doc.components.schemas } } as never);
    for (const name of Object.keys(doc.components.schemas)) {
      expect(() => ajv.compile({ $ref: `urn:patchbay:openapi#/components/schemas/${name}` })).not.toThrow();
    }
  });

  test('every object type has its list and detail endpoints with NetBox-style operationIds, tagged by application', () => {
    for (const model of t.registry.byPath.values()) {
      const list = doc.paths[`/api/${model.app}/${model.path}/`];
      const detail = doc.paths[`/api/${model.app}/${model.path}/{id}/`];
      expect(list).toBeDefined();
      expect(detail).toBeDefined();
      const p = operationPrefix(model);
      const ids = (item: Json) => Object.fromEntries(['get', 'post', 'put', 'patch', 'delete'].filter((m) => item[m]).map((m) => [m, (item[m] as Json).operationId]));
      // A read-only type (content types) documents its reads only, as it serves only them.
      expect(ids(list!)).toEqual(model.def.read_only ? { get: `${p}_list` } : {
        get: `${p}_list`, post: `${p}_create`, put: `${p}_bulk_update`, patch: `${p}_bulk_partial_update`, delete: `${p}_bulk_destroy`,
      });
      expect(ids(detail!)).toEqual(model.def.read_only ? { get: `${p}_retrieve` } : {
        get: `${p}_retrieve`, put: `${p}_update`, patch: `${p}_partial_update`, delete: `${p}_destroy`,
      });
      expect((list!.get as Json).tags).toEqual([model.app]);
    }
    expect(doc.paths['/api/dcim/sites/']!.get).toMatchObject({ operationId: 'dcim_sites_list' });
    expect(doc.paths['/api/ipam/ip-addresses/{id}/']!.patch).toMatchObject({ operationId: 'ipam_ip_addresses_partial_update' });
  });

  test('the API root, the application roots, status and every list action (token provisioning) are documented', () => {
    for (const p of ['/api/', '/api/status/', '/api/dcim/', '/api/ipam/', '/api/circuits/', '/api/schema/']) expect(doc.paths[p]?.get).toBeDefined();
    for (const model of t.registry.byPath.values()) {
      for (const [name, fn] of Object.entries(model.def.list_actions ?? {})) {
        expect(isDocumentedAction(fn)).toBe(true);
        const op = doc.paths[`/api/${model.app}/${model.path}/${name}/`]?.post as Json | undefined;
        expect(op?.requestBody).toBeDefined();
      }
    }
    const provision = doc.paths['/api/users/tokens/provision/']!.post as Json;
    expect(provision.operationId).toBe('users_tokens_provision_create');
    expect(provision.security).toEqual([]);
    expect(resolvePointer(doc, '#/components/schemas/TokenProvisionRequest')).toMatchObject({ required: ['username', 'password'] });
    expect(Object.keys(provision.responses as Json)).toEqual(expect.arrayContaining(['201', '400', '403', '429']));
  });

  test('request bodies are the very schemas the validator compiles (requestSchema), single and bulk', () => {
    for (const model of [...t.registry.byPath.values()].filter((m) => !m.def.read_only)) {
      const n = modelSchemaNames(model);
      const { title: t1, ...create } = doc.components.schemas[n.create]!;
      const { title: t2, ...partial } = doc.components.schemas[n.partial]!;
      expect([t1, t2]).toEqual([n.create, n.partial]);
      expect(create).toEqual(JSON.parse(JSON.stringify(requestSchema(model, 'create'))));
      expect(partial).toEqual(JSON.parse(JSON.stringify(requestSchema(model, 'partial'))));
      const list = doc.paths[`/api/${model.app}/${model.path}/`]!;
      const body = (op: string) => ((list[op] as Json).requestBody as { content: Record<string, { schema: Json }> }).content['application/json']!.schema;
      expect(body('post')).toEqual({ oneOf: [{ $ref: `#/components/schemas/${n.create}` }, { type: 'array', items: { $ref: `#/components/schemas/${n.create}` }, minItems: 1 }] });
      expect(body('put')).toEqual({ type: 'array', items: { $ref: `#/components/schemas/${n.bulkUpdate}` }, minItems: 1 });
      expect(body('patch')).toEqual({ type: 'array', items: { $ref: `#/components/schemas/${n.bulkPartialUpdate}` }, minItems: 1 });
      expect(body('delete')).toEqual({ type: 'array', items: { $ref: '#/components/schemas/BulkDeleteRequest' }, minItems: 1 });
      // A type with image fields also takes one object as a form, its images as file parts.
      const form = ((list.post as Json).requestBody as { content: Record<string, { schema: Json } | undefined> }).content['multipart/form-data']?.schema;
      const images = model.fieldList.filter((f) => f.kind === 'image');
      if (!images.length) expect(form).toBeUndefined();
      for (const f of images) {
        expect((form!.properties as Record<string, Json>)[f.name]).toMatchObject({ type: 'string', format: 'binary' });
        // An optional image (a device type's front_image) is an optional part.
        if (f.required) expect(form!.required).toContain(f.name);
        else expect((form!.required as string[] | undefined) ?? []).not.toContain(f.name);
      }
    }
    expect(t.registry.models.get('extras.imageattachment')?.fieldList.some((f) => f.kind === 'image')).toBe(true);
  });

  test('every filter of every list is a query parameter, with each of its lookups, plus paging, brief, ordering, q and cf_', () => {
    for (const model of t.registry.byPath.values()) {
      const op = doc.paths[`/api/${model.app}/${model.path}/`]!.get as Json;
      const params = op.parameters as Json[];
      const names = new Set(params.map((p) => p.name as string));
      const expected = ['limit', 'offset', 'brief', 'ordering', 'exclude'];
      if (model.search.length) expected.push('q');
      if (model.fieldList.some((f) => f.kind === 'custom_fields')) expected.push('custom_field_filters');
      for (const def of filterTable(model).values()) {
        for (const lookup of def.lookups) expected.push(lookup === 'exact' ? def.name : `${def.name}__${lookup}`);
      }
      expect(expected.filter((name) => !names.has(name))).toEqual([]);
      expect(params.every((p) => p.in === 'query' && typeof p.description === 'string' && p.schema)).toBe(true);
    }
    const sites = (doc.paths['/api/dcim/sites/']!.get as Json).parameters as Json[];
    expect(sites).toEqual(expect.arrayContaining([
      expect.objectContaining({ name: 'name__ic', schema: { type: 'array', items: { type: 'string' } }, style: 'form', explode: true }),
      expect.objectContaining({ name: 'status', schema: { type: 'array', items: { type: 'string', enum: expect.arrayContaining(['active', 'planned']) } } }),
      expect.objectContaining({ name: 'region_id', schema: { type: 'array', items: { type: 'integer' } } }),
      expect.objectContaining({ name: 'description__empty', schema: { type: 'boolean' } }),
    ]));
  });

  test('every parameter anywhere is written inline with name, in and schema, as drf-spectacular writes them', () => {
    // The Ansible inventory plugin reads parameters[].name of the device and VM lists and does not follow $refs.
    const bad: string[] = [];
    let count = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [key, value] of Object.entries(item)) {
        const params = key === 'parameters' ? value : (value as Json | undefined)?.parameters;
        for (const p of (params ?? []) as Json[]) {
          count += 1;
          if ('$ref' in p || typeof p.name !== 'string' || typeof p.in !== 'string' || typeof p.schema !== 'object') bad.push(`${path} ${key} ${JSON.stringify(p)}`);
        }
      }
    }
    expect(bad).toEqual([]);
    expect(count).toBeGreaterThan(1000);
    // Path parameters too belong to each operation, none to a path item, as drf-spectacular writes them.
    expect(Object.entries(doc.paths).filter(([, item]) => item.parameters).map(([path]) => path)).toEqual([]);
    const unnamed = operations().filter(({ path, op }) => [...path.matchAll(/\{(\w+)\}/g)].some(([, name]) => !(op.parameters as Json[] | undefined)?.some((p) => p.in === 'path' && p.name === name && p.required === true)));
    expect(unnamed.map(({ path, method }) => `${method} ${path}`)).toEqual([]);
    expect(((doc.paths['/api/dcim/sites/{id}/']!.delete as Json).parameters as Json[])).toEqual([
      { name: 'id', in: 'path', required: true, description: 'A unique integer value identifying this site.', schema: { type: 'integer', minimum: 1 } },
      // Every write takes it (docs/scaling-out/idempotency.md).
      expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 255 } }),
    ]);
    expect(doc.components.parameters).toBeUndefined();
    const devices = ((doc.paths['/api/dcim/devices/']!.get as Json).parameters as Json[]).map((p) => p.name);
    expect(devices.slice(0, 4)).toEqual(['limit', 'offset', 'brief', 'exclude']);
    expect(devices).toEqual(expect.arrayContaining(['q', 'site_id', 'role', 'platform', 'tag']));
  });

  test('responses: full, brief and paginated forms, and the errors', () => {
    const n = modelSchemaNames(t.registry.byPath.get('dcim/sites')!);
    const list = doc.paths['/api/dcim/sites/']!;
    const detail = doc.paths['/api/dcim/sites/{id}/']!;
    const schemaAt = (op: Json, code: string) => ((op.responses as Record<string, { content?: Record<string, { schema: Json }> }>)[code]!.content!['application/json']!.schema);
    expect(schemaAt(list.get as Json, '200')).toEqual({ anyOf: [{ $ref: `#/components/schemas/${n.list}` }, { $ref: `#/components/schemas/${n.briefList}` }] });
    expect(schemaAt(detail.get as Json, '200')).toEqual({ anyOf: [{ $ref: `#/components/schemas/${n.full}` }, { $ref: `#/components/schemas/${n.brief}` }] });
    expect(doc.components.schemas[n.list]).toMatchObject({ required: ['count', 'next', 'previous', 'results'] });
    const responses = doc.components.responses as Record<string, Json>;
    expect(Object.keys(responses)).toEqual(expect.arrayContaining(['BadRequest', 'Forbidden', 'NotFound', 'MethodNotAllowed', 'Conflict', 'UnsupportedMediaType']));
    const refs = (op: Json) => Object.fromEntries(Object.entries(op.responses as Record<string, Json>).filter(([, r]) => r.$ref).map(([code, r]) => [code, r.$ref]));
    expect(refs(list.post as Json)).toMatchObject({ 400: '#/components/responses/BadRequest', 403: '#/components/responses/Forbidden', 415: '#/components/responses/UnsupportedMediaType' });
    expect(refs(detail.delete as Json)).toMatchObject({ 404: '#/components/responses/NotFound', 409: '#/components/responses/Conflict' });
  });

  test('the token security scheme: Authorization: Token <key>', () => {
    expect(doc.components.securitySchemes).toEqual({ tokenAuth: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'Authorization' }) });
    expect(String((doc.components.securitySchemes as Record<string, Json>).tokenAuth!.description)).toMatch(/^Token <key>/);
    expect(doc.security).toEqual([{ tokenAuth: [] }]);
  });
});

describe('/api/schema/', () => {
  test('JSON by default, with ?format=json and with Accept: application/vnd.oai.openapi+json', async () => {
    const plain = await t.api.get('/api/schema/');
    expect(plain.headers['content-type']).toMatch(/^application\/json/);
    const byFormat = await t.api.get('/api/schema/?format=json');
    expect(byFormat.headers['content-type']).toMatch(/^application\/vnd\.oai\.openapi\+json/);
    const byAccept = await t.api.get('/api/schema/').set('Accept', 'application/vnd.oai.openapi+json');
    expect(byAccept.headers['content-type']).toMatch(/^application\/vnd\.oai\.openapi\+json/);
    expect(JSON.parse(byFormat.text)).toEqual(doc);
    expect(JSON.parse(byAccept.text)).toEqual(doc);
    // A browser gets the document too, not a browsable page around it.
    const browser = await t.api.get('/api/schema/').set('Accept', 'text/html,*/*;q=0.8');
    expect(JSON.parse(browser.text)).toEqual(doc);
  });

  test('YAML with ?format=yaml and with Accept: application/yaml', async () => {
    const byFormat = await t.api.get('/api/schema/?format=yaml');
    const byAccept = await t.api.get('/api/schema/').set('Accept', 'application/yaml');
    for (const r of [byFormat, byAccept]) {
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toMatch(/^application\/yaml/);
      expect(r.text.startsWith('openapi: 3.1.0')).toBe(true);
    }
    expect(byAccept.text).toBe(byFormat.text);
    expect(YAML.parse(byFormat.text)).toEqual(doc);
  });

  test('needs no token, answers only GET and HEAD, refuses an unknown format, redirects without its slash', async () => {
    expect((await t.api.head('/api/schema/')).status).toBe(200);
    const post = await t.api.post('/api/schema/').set(t.auth).send({});
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    const xml = await t.api.get('/api/schema/?format=xml');
    expect(xml.status).toBe(400);
    expect(xml.body).toEqual({ format: ['Select a valid format: json or yaml.'] });
    const bare = await t.api.get('/api/schema');
    expect(bare.status).toBe(302);
    expect(bare.headers.location).toBe('/api/schema/');
  });
});

describe('Swagger UI', () => {
  test.each(['/api/docs/', '/api/schema/swagger-ui/'])('%s serves the page and all its assets from Patchbay itself', async (root) => {
    const page = await t.api.get(root);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    // No CDN: every asset the page loads is relative to it (the bar's links lead to the API and the login page).
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((u) => !u.startsWith('/api/') && u !== '/login/');
    expect(assets).toEqual(expect.arrayContaining(['swagger-ui.css', 'swagger-ui-bundle.js', 'patchbay-init.js']));
    expect(page.text).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
    for (const asset of assets) {
      const r = await t.api.get(`${root}${asset}`);
      expect([asset, r.status]).toEqual([asset, 200]);
      expect(r.body.length ?? r.text.length).toBeGreaterThan(100);
    }
    const css = await t.api.get(`${root}swagger-ui.css`);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    const init = await t.api.get(`${root}patchbay-init.js`);
    expect(init.headers['content-type']).toMatch(/javascript/);
    expect(init.text).toContain('"/api/schema/?format=json"');
    expect(init.text).toContain('validatorUrl: null');
  });

  test('unknown files are 404 and the bare path redirects', async () => {
    expect((await t.api.get('/api/docs/../../package.json')).status).not.toBe(200);
    expect((await t.api.get('/api/docs/index.js')).status).not.toBe(200);
    expect((await t.api.get('/api/docs/nothing/')).status).toBe(404);
    const bare = await t.api.get('/api/docs');
    expect(bare.status).toBe(302);
    expect(bare.headers.location).toBe('/api/docs/');
  });
});
