/**
 * A wireless LAN's and a wireless link's pre-shared key (`shown_with: change` on a public type): whoever
 * may view the LAN sees it without its key; the key shows to those who may change the LAN (within the
 * constraints of their change permission), never nested in another object, and its filter tells nothing
 * to the others. The types themselves stay public: EXEMPT_VIEW_PERMISSIONS=* opens them, key withheld.
 */
import { startTestApp, type TestApp } from '../support/test-app';
import { apiWith } from '../support/listen';
import { grant, made, newUser, type User } from '../security/support';

let t: TestApp;
let viewer: User;
let changer: User;
let officeOnly: User;
const LANS = '/api/wireless/wireless-lans/';

beforeAll(async () => {
  t = await startTestApp();
  await made(t, LANS, { ssid: 'office', auth_type: 'wpa-personal', auth_psk: 'office-psk-123' });
  await made(t, LANS, { ssid: 'lab', auth_type: 'wpa-personal', auth_psk: 'lab-psk-456' });
  viewer = await newUser(t);
  await grant(t, { users: [viewer.id], types: ['wireless.wirelesslan', 'dcim.interface', 'wireless.wirelesslink'], actions: ['view'] });
  changer = await newUser(t);
  await grant(t, { users: [changer.id], types: ['wireless.wirelesslan'], actions: ['view', 'change'] });
  officeOnly = await newUser(t);
  await grant(t, { users: [officeOnly.id], types: ['wireless.wirelesslan'], actions: ['view'] });
  await grant(t, { users: [officeOnly.id], types: ['wireless.wirelesslan'], actions: ['change'], constraints: { ssid: 'office' } });
});
afterAll(async () => {
  await t.close();
});

async function psks(h: Record<string, string>, query = '', api = t.api): Promise<Array<[string, unknown]>> {
  const res = await api.get(`${LANS}?ordering=ssid${query}`).set(h);
  expect([query, res.status]).toEqual([query, 200]);
  return (res.body.results as Array<Record<string, unknown>>).map((l) => [l.ssid as string, 'auth_psk' in l ? l.auth_psk : 'absent']);
}

test('view alone: the LANs without their keys; change: with them, on the LANs the change permission covers', async () => {
  expect(await psks(viewer.h)).toEqual([['lab', 'absent'], ['office', 'absent']]);
  expect(await psks(changer.h)).toEqual([['lab', 'lab-psk-456'], ['office', 'office-psk-123']]);
  expect(await psks(officeOnly.h)).toEqual([['lab', 'absent'], ['office', 'office-psk-123']]);
  expect(await psks(t.auth)).toEqual([['lab', 'lab-psk-456'], ['office', 'office-psk-123']]);
});

test('the key filter matches nothing for a caller who may not see the key', async () => {
  expect(await psks(viewer.h, '&auth_psk=office-psk-123')).toEqual([]);
  expect(await psks(changer.h, '&auth_psk=office-psk-123')).toEqual([['office', 'office-psk-123']]);
  expect(await psks(changer.h, '&q=psk')).toEqual([]);
});

test('the type stays public: EXEMPT_VIEW_PERMISSIONS=* opens it to anyone, keys withheld', async () => {
  const open = apiWith(t, { EXEMPT_VIEW_PERMISSIONS: '*' });
  expect(await psks({}, '', open)).toEqual([['lab', 'absent'], ['office', 'absent']]);
});

test('a wireless link\'s key likewise, and never nested in an interface', async () => {
  const site = await made(t, '/api/dcim/sites/', { name: 'S', slug: 's' });
  const mf = await made(t, '/api/dcim/manufacturers/', { name: 'M', slug: 'm' });
  const dt = await made(t, '/api/dcim/device-types/', { manufacturer: mf, model: 'T', slug: 't' });
  const role = await made(t, '/api/dcim/device-roles/', { name: 'R', slug: 'r' });
  const dev = await made(t, '/api/dcim/devices/', { name: 'ap', device_type: dt, role, site });
  const a = await made(t, '/api/dcim/interfaces/', { device: dev, name: 'w0', type: 'ieee802.11ac' });
  const b = await made(t, '/api/dcim/interfaces/', { device: dev, name: 'w1', type: 'ieee802.11ac' });
  const link = await made(t, '/api/wireless/wireless-links/', { interface_a: a, interface_b: b, auth_psk: 'link-psk' });
  expect((await t.api.get(`/api/wireless/wireless-links/${link}/`).set(viewer.h)).body).not.toHaveProperty('auth_psk');
  expect((await t.api.get(`/api/wireless/wireless-links/${link}/`).set(t.auth)).body.auth_psk).toBe('link-psk');
  const iface = (await t.api.get(`/api/dcim/interfaces/${a}/`).set(t.auth)).body as Record<string, Record<string, unknown>>;
  expect(Object.keys(iface.wireless_link!)).toEqual(['id', 'url', 'display', 'ssid']);
});
