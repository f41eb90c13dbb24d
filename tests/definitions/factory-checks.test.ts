/**
 * The test factories keep every check a definition declares, with no harness code for the type: a new
 * type whose only_when checks reach into related objects (a radio link's interfaces must be wireless,
 * NetBox's WirelessLink.clean) is made valid by the factories the derived suites use, and the API
 * accepts it (201). Run on a copy of schema/ with that type added and migrated, as a model author would.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../engine/config';
import { makeMigrations } from '../../engine/cli/makemigrations';
import type { ResolvedModel } from '../../engine/definitions/registry-types';
import { startTestApp, type TestApp } from '../support/test-app';
import { sendObject } from '../support/send-object';
import { listUrl, validObjects } from '../support/valid-objects';
import { ObjectFactory as OpenApiFactory } from '../openapi/object-factory';
import { ObjectFactory as FilterFactory } from '../filters/support/object-factory';
import { readDefinitions } from '../filters/support/definitions';
import { tempDir } from '../cli/cli-support';

const ROOT = path.resolve(__dirname, '..', '..');
const WIRELESS = ['ieee802.11a', 'ieee802.11g', 'ieee802.11n', 'ieee802.11ac', 'ieee802.11ad', 'ieee802.11ax'];
const RADIO_LINK = {
  $schema: '../model.schema.json',
  app: 'dcim',
  model: 'radiolink',
  path: 'radio-links',
  verbose_name: 'radio link',
  verbose_name_plural: 'radio links',
  display: '{ssid}',
  brief: ['id', 'url', 'display', 'ssid'],
  fields: {
    interface_a: { type: 'fk', to: 'dcim.interface', required: true, on_delete: 'protect', related_name: 'radio_links_a' },
    interface_b: { type: 'fk', to: 'dcim.interface', required: true, on_delete: 'protect', related_name: 'radio_links_b' },
    ssid: { type: 'string', max_length: 32, blank: true },
  },
  checks: [
    { field: 'interface_a', only_when: { 'interface_a.type': WIRELESS }, message: 'Interface A ({interface_a.name}) is not a wireless interface.' },
    // Two hops: the device of interface B, as the factory must make it before the interface.
    { field: 'interface_b', only_when: { 'interface_b.device.status': ['planned'] }, message: 'Interface B must be on a planned device.' },
  ],
};

const tmp = tempDir('factory-checks');
const dirs = { schemaDir: path.join(tmp.dir, 'schema'), migrationsDir: path.join(tmp.dir, 'migrations') };
let t: TestApp;
let link: ResolvedModel;
// One for the file: its serial numbers keep the names it makes unique.
const objects = validObjects(() => t);

beforeAll(async () => {
  fs.cpSync(path.join(ROOT, 'schema'), dirs.schemaDir, { recursive: true });
  fs.cpSync(path.join(ROOT, 'migrations'), dirs.migrationsDir, { recursive: true });
  const config = loadConfig({ ...process.env, PATCHBAY_SCHEMA_DIR: dirs.schemaDir, PATCHBAY_MIGRATIONS_DIR: dirs.migrationsDir });
  // In step with the copy's own migrations first, then the new type's migration, as makemigrations writes it.
  expect(makeMigrations(config, false)).toBe(0);
  fs.writeFileSync(path.join(dirs.schemaDir, 'dcim', 'radio-link.json'), JSON.stringify(RADIO_LINK, null, 2));
  expect(makeMigrations(config, false)).toBe(0);
  t = await startTestApp(dirs);
  link = t.registry.models.get('dcim.radiolink')!;
});
afterAll(async () => {
  await t?.close();
  tmp.remove();
});

/** interface_a's type and interface_b's device status, as the API shows the objects a link was made with. */
async function made(linkId: number): Promise<{ typeA: unknown; statusB: unknown }> {
  const l = await t.api.get(`${listUrl(link)}${linkId}/`).set(t.auth);
  expect(l.status).toBe(200);
  const a = await t.api.get(`/api/dcim/interfaces/${l.body.interface_a.id}/`).set(t.auth);
  const b = await t.api.get(`/api/dcim/interfaces/${l.body.interface_b.id}/`).set(t.auth);
  const device = await t.api.get(`/api/dcim/devices/${b.body.device.id}/`).set(t.auth);
  return { typeA: a.body.type.value, statusB: device.body.status.value };
}

test('the checks are live: a link between interfaces made without them is refused, naming the field', async () => {
  const iface = t.registry.models.get('dcim.interface')!;
  const [a, b] = [await objects.createOne(iface), await objects.createOne(iface)];
  const res = await sendObject(t, 'post', listUrl(link), link, { interface_a: a, interface_b: b });
  expect([res.status, Object.keys(res.body).sort()]).toEqual([400, ['interface_a', 'interface_b']]);
  expect(res.body.interface_b).toEqual(['Interface B must be on a planned device.']);
});

test('the shared factory (bad input, catalogue rules) makes a link the API accepts: 201', async () => {
  const body = await objects.validBody(link);
  const res = await sendObject(t, 'post', listUrl(link), link, body);
  expect([res.status, res.text]).toEqual([201, expect.any(String)]);
  expect(await made(res.body.id)).toEqual({ typeA: WIRELESS[0], statusB: 'planned' });
});

test("the shared factory's object for one relation keeps the checks on it (catalogue rules' deletes)", async () => {
  const body = await objects.validBody(link);
  body.interface_a = await objects.relatedFor(link, link.fields.get('interface_a')!, body);
  const res = await sendObject(t, 'post', listUrl(link), link, body);
  expect([res.status, res.text]).toEqual([201, expect.any(String)]);
});

test('the OpenAPI responses factory makes one: 201', async () => {
  const factory = new OpenApiFactory(t);
  const id = await factory.make(link);
  expect({ id, failure: factory.failures.get(link.label) }).toEqual({ id: expect.any(Number), failure: undefined });
  expect(await made(id!)).toEqual({ typeA: WIRELESS[0], statusB: 'planned' });
});

test("the filter suite's factory makes one through the API: 201", async () => {
  const defs = readDefinitions(dirs.schemaDir);
  const factory = new FilterFactory(t, defs);
  const rep = await factory.create(defs.models.get('dcim.radiolink')!);
  expect(await made(rep.id as number)).toEqual({ typeA: WIRELESS[0], statusB: 'planned' });
});
