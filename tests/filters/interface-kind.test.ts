/**
 * Interfaces' kind (NetBox's filter_kind): physical, virtual or wireless, from the groups the definition
 * gives the interface types; the value is read trimmed and in any case, as NetBox reads it.
 */
import { startTestApp, type TestApp } from '../support/test-app';

describe('interfaces ?kind=', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    const post = async (url: string, body: object) => {
      const res = await t.api.post(url).set(t.auth).send(body);
      expect(res.status).toBe(201);
      return res.body.id as number;
    };
    const manufacturer = await post('/api/dcim/manufacturers/', { name: 'Acme', slug: 'acme' });
    const device_type = await post('/api/dcim/device-types/', { manufacturer, model: 'Box', slug: 'box' });
    const role = await post('/api/dcim/device-roles/', { name: 'Edge', slug: 'edge' });
    const site = await post('/api/dcim/sites/', { name: 'Ams', slug: 'ams' });
    const device = await post('/api/dcim/devices/', { name: 'edge1', device_type, role, site });
    for (const [name, type] of [['eth0', '1000base-t'], ['lag0', 'lag'], ['wlan0', 'ieee802.11ax']]) await post('/api/dcim/interfaces/', { device, name, type });
  });
  afterAll(async () => t?.close());

  const names = async (q: string) => {
    const res = await t.api.get(`/api/dcim/interfaces/?${q}&ordering=name`).set(t.auth);
    return [res.status, res.status === 200 ? res.body.results.map((r: { name: string }) => r.name) : res.body];
  };

  test('each kind, repeated kinds, and a value in another case', async () => {
    expect(await names('kind=physical')).toEqual([200, ['eth0']]);
    expect(await names('kind=virtual')).toEqual([200, ['lag0']]);
    expect(await names('kind=wireless')).toEqual([200, ['wlan0']]);
    expect(await names('kind=virtual&kind=wireless')).toEqual([200, ['lag0', 'wlan0']]);
    expect(await names('kind=%20Physical%20')).toEqual([200, ['eth0']]);
  });

  test('a value that is no kind is a 400 naming the filter', async () => {
    expect(await names('kind=optical')).toEqual([400, { kind: ['Select a valid choice. optical is not one of the available choices.'] }]);
  });
});
