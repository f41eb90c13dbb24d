/**
 * NetBox's Interface.save() filling a wireless interface's channel frequency and width from its channel
 * (the `filled_from_choice` word): 2.4g-1-2412-22 is 2412 MHz wide 22 MHz, when the write leaves them
 * unset (null or 0), on create and on change; another value with a channel is refused (Interface.clean()).
 */
import { startTestApp, type TestApp } from '../support/test-app';

type Json = Record<string, unknown>;
let t: TestApp;
let device: number;
let n = 0;

async function made(path: string, body: Json): Promise<Json> {
  const res = await t.api.post(path).set(t.auth).send(body);
  if (res.status !== 201) throw new Error(`POST ${path} -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Json;
}
async function patched(path: string, body: Json): Promise<Json> {
  const res = await t.api.patch(path).set(t.auth).send(body);
  if (res.status !== 200) throw new Error(`PATCH ${path} -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Json;
}
const radio = (extra: Json) => made('/api/dcim/interfaces/', { device, name: `wlan${++n}`, type: 'ieee802.11n', ...extra });
const channel = (i: Json) => [(i.rf_channel as Json | null)?.value ?? null, i.rf_channel_frequency, i.rf_channel_width];

beforeAll(async () => {
  t = await startTestApp();
  const site = (await made('/api/dcim/sites/', { name: 'S', slug: 's' })).id;
  const mfr = (await made('/api/dcim/manufacturers/', { name: 'M', slug: 'm' })).id;
  const type = (await made('/api/dcim/device-types/', { manufacturer: mfr, model: 'T', slug: 't' })).id;
  const role = (await made('/api/dcim/device-roles/', { name: 'R', slug: 'r' })).id;
  device = (await made('/api/dcim/devices/', { name: 'ap', device_type: type, role, site })).id as number;
});
afterAll(async () => {
  await t.close();
});

test('a channel given alone fills its frequency and width, as read back', async () => {
  const i = await radio({ rf_channel: '2.4g-1-2412-22' });
  expect(channel(i)).toEqual(['2.4g-1-2412-22', 2412, 22]);
  const again = (await t.api.get(`/api/dcim/interfaces/${String(i.id)}/`).set(t.auth)).body as Json;
  expect(channel(again)).toEqual(['2.4g-1-2412-22', 2412, 22]);
});

test('a frequency of 0 or null is unset and filled; the channel\'s own width given is accepted', async () => {
  expect(channel(await radio({ rf_channel: '5g-36-5180-20', rf_channel_frequency: 0, rf_channel_width: null }))).toEqual(['5g-36-5180-20', 5180, 20]);
  expect(channel(await radio({ rf_channel: '5g-36-5180-20', rf_channel_width: 20 }))).toEqual(['5g-36-5180-20', 5180, 20]);
});

test('no channel, nothing filled; a channel set later by a change fills what is unset', async () => {
  const i = await radio({});
  expect(channel(i)).toEqual([null, null, null]);
  expect(channel(await patched(`/api/dcim/interfaces/${String(i.id)}/`, { description: 'x' }))).toEqual([null, null, null]);
  expect(channel(await patched(`/api/dcim/interfaces/${String(i.id)}/`, { rf_channel: '2.4g-6-2437-22' }))).toEqual(['2.4g-6-2437-22', 2437, 22]);
  // Clearing the frequency of a row with a channel fills it again from the stored channel.
  expect(channel(await patched(`/api/dcim/interfaces/${String(i.id)}/`, { rf_channel_frequency: null }))).toEqual(['2.4g-6-2437-22', 2437, 22]);
});

test('another frequency or width than the channel\'s is refused, naming each; without a channel any is kept', async () => {
  const res = await t.api.post('/api/dcim/interfaces/').set(t.auth).send({ device, name: 'bad', type: 'ieee802.11n', rf_channel: '2.4g-1-2412-22', rf_channel_frequency: 2400, rf_channel_width: 40 });
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ rf_channel_frequency: ['Cannot specify custom frequency with channel selected.'], rf_channel_width: ['Cannot specify custom width with channel selected.'] });
  const free = await radio({ rf_channel_frequency: 2400.5, rf_channel_width: 40 });
  expect(channel(free)).toEqual([null, 2400.5, 40]);
  // A channel chosen later must agree with the stored numbers.
  const later = await t.api.patch(`/api/dcim/interfaces/${String(free.id)}/`).set(t.auth).send({ rf_channel: '2.4g-1-2412-22' });
  expect(later.status).toBe(400);
  expect(later.body).toEqual({ rf_channel_frequency: ['Cannot specify custom frequency with channel selected.'], rf_channel_width: ['Cannot specify custom width with channel selected.'] });
});
