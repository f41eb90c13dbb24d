/**
 * /api/schema/?app=<application>: one application's operations and every component they reach, a valid
 * OpenAPI document of its own (what the docs page draws, as the whole document takes Swagger UI minutes).
 * The whole document at /api/schema/ is unchanged by it.
 */
import { openApiDocument } from '../../engine/openapi/openapi-document';
import { startTestApp, type TestApp } from '../support/test-app';
import { allRefs, resolvePointer, validateOpenApi, type Json, type OpenApi } from './openapi-support';

let t: TestApp;
let whole: OpenApi;

beforeAll(async () => {
  t = await startTestApp();
  const r = await t.api.get('/api/schema/?format=json');
  expect(r.status).toBe(200);
  whole = JSON.parse(r.text) as OpenApi;
});
afterAll(async () => {
  await t?.close();
});

const tagsOf = (item: Record<string, Json>) => new Set(Object.values(item).flatMap((op) => (Array.isArray(op.tags) ? (op.tags as string[]) : [])));

test('the whole document is still the whole document', () => {
  expect(whole).toEqual(JSON.parse(JSON.stringify(openApiDocument(t.registry, 'test'))));
});

describe.each(['dcim', 'ipam', 'vpn'])('?app=%s', (app) => {
  let part: OpenApi;
  beforeAll(async () => {
    const r = await t.api.get(`/api/schema/?format=json&app=${app}`);
    expect(r.status).toBe(200);
    part = JSON.parse(r.text) as OpenApi;
  });

  test('holds exactly the paths whose operations are tagged with the application, as the whole document has them', () => {
    const expected = Object.fromEntries(Object.entries(whole.paths).filter(([, item]) => tagsOf(item).has(app)));
    expect(Object.keys(expected).length).toBeGreaterThan(3);
    expect(part.paths).toEqual(expected);
    expect(part.tags).toEqual((whole.tags as Array<{ name: string }>).filter((tag) => tag.name === app));
  });

  test('every $ref resolves inside it, each component as the whole document has it, and none is unused', () => {
    for (const { ref } of allRefs(part)) expect({ ref, found: resolvePointer(part, ref) !== undefined }).toEqual({ ref, found: true });
    const kinds = part.components as Record<string, Record<string, unknown>>;
    const used = new Set(allRefs(part).map((r) => r.ref));
    for (const [kind, members] of Object.entries(kinds)) {
      for (const [name, value] of Object.entries(members)) {
        expect(value).toEqual((whole.components as Record<string, Record<string, unknown>>)[kind]![name]);
        if (kind !== 'securitySchemes') expect({ name, used: used.has(`#/components/${kind}/${name}`) }).toEqual({ name, used: true });
      }
    }
    expect(Object.keys(kinds.schemas!).length).toBeLessThan(Object.keys(whole.components.schemas).length);
  });

  test('is valid OpenAPI 3.1', async () => {
    const result = await validateOpenApi(part);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });
});

test('YAML too, and an unknown application is a 400 naming the parameter', async () => {
  const yaml = await t.api.get('/api/schema/?format=yaml&app=tenancy');
  expect(yaml.status).toBe(200);
  expect(yaml.text).toContain('/api/tenancy/tenants/:');
  expect(yaml.text).not.toContain('/api/dcim/');
  const unknown = await t.api.get('/api/schema/?app=nothing');
  expect(unknown.status).toBe(400);
  expect(unknown.body).toEqual({ app: ['Select a valid choice. nothing is not one of the available choices.'] });
});
