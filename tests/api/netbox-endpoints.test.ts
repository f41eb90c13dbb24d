/**
 * The endpoints in scope: NetBox 3.7's 97 of the eight seed applications (the reference data) and the 13 of
 * its wireless and vpn applications, 110 in all. Each answers a GET as NetBox does: a list page, or (the
 * three endpoints that are not lists) the object or the 400 NetBox gives without its required parameters.
 */
import { startTestApp, type TestApp } from '../support/test-app';
import { readNetboxReference } from '../reference/netbox-reference-file';

/** NetBox 3.7.8's wireless and vpn list endpoints (netbox/wireless/api/urls.py, netbox/vpn/api/urls.py). */
const WIRELESS_AND_VPN = [
  'wireless/wireless-lan-groups', 'wireless/wireless-lans', 'wireless/wireless-links',
  'vpn/ike-policies', 'vpn/ike-proposals', 'vpn/ipsec-policies', 'vpn/ipsec-profiles', 'vpn/ipsec-proposals',
  'vpn/l2vpn-terminations', 'vpn/l2vpns', 'vpn/tunnel-groups', 'vpn/tunnel-terminations', 'vpn/tunnels',
];

/** Endpoints that are not paginated lists in NetBox: what a bare GET answers there. */
const NOT_LISTS: Record<string, number> = {
  'dcim/connected-device': 400, // peer_device and peer_interface are required
  'extras/dashboard': 200, // the caller's own dashboard
  'users/config': 200, // the caller's own preferences
};

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const endpoints = [...Object.keys(readNetboxReference<{ endpoints: Record<string, unknown> }>().endpoints), ...WIRELESS_AND_VPN].sort();

test('110 endpoints are in scope', () => {
  expect(new Set(endpoints).size).toBe(110);
});

test.each(endpoints)('GET /api/%s/ answers as NetBox does', async (endpoint) => {
  const res = await t.api.get(`/api/${endpoint}/`).set(t.auth);
  const expected = NOT_LISTS[endpoint] ?? 200;
  expect({ endpoint, status: res.status }).toEqual({ endpoint, status: expected });
  if (!(endpoint in NOT_LISTS)) {
    expect(Object.keys(res.body as object)).toEqual(['count', 'next', 'previous', 'results']);
  }
});
