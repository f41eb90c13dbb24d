import { ApiClient, excerpt, isObject, type JsonObject } from './http-client';
import { pool, row, type WriteRow } from './writes';

/**
 * Devices created one POST each, every one of a type with 51 component templates (48 interfaces, a
 * console port, two power ports): each create also writes its 51 components in its transaction
 * (the `instantiate` rules). Patchbay only: NetBox's baseline has no such row.
 */
export async function runDeviceWrites(api: ApiClient, objects: number, threads: number, round: number): Promise<{ rows: WriteRow[]; verify: string | null }> {
  const tag = `bench-dev-${round}-${Date.now().toString(36)}`;
  const made = async (path: string, body: JsonObject | JsonObject[]): Promise<number> => {
    const res = await api.request('POST', path, body);
    if (res.status !== 201) throw new Error(`${path}: ${excerpt(res)}`);
    return Array.isArray(res.json) ? 0 : ((res.json as JsonObject).id as number);
  };
  const site = await made('/api/dcim/sites/', { name: tag, slug: tag });
  const role = await made('/api/dcim/device-roles/', { name: tag, slug: tag });
  const manufacturer = await made('/api/dcim/manufacturers/', { name: tag, slug: tag });
  const deviceType = await made('/api/dcim/device-types/', { manufacturer, model: tag, slug: tag });
  await made('/api/dcim/interface-templates/', Array.from({ length: 48 }, (_, i) => ({ device_type: deviceType, name: `ge-0/0/${i}`, type: '1000base-t' })));
  await made('/api/dcim/console-port-templates/', { device_type: deviceType, name: 'con0', type: 'rj-45' });
  await made('/api/dcim/power-port-templates/', [{ device_type: deviceType, name: 'PSU1' }, { device_type: deviceType, name: 'PSU2' }]);
  const bodies = Array.from({ length: objects }, (_, i) => ({ name: `${tag}-${i}`, device_type: deviceType, role, site }));
  let wrong = 0;
  const created = await pool(bodies, threads, async (body) => {
    const res = await api.request('POST', '/api/dcim/devices/', body);
    if (res.status !== 201 || !isObject(res.json)) return `POST: ${excerpt(res)}`;
    const j = res.json;
    if (j.interface_count !== 48 || j.console_port_count !== 1 || j.power_port_count !== 2) wrong++;
    return null;
  });
  return { rows: [row('device_51_components', threads, objects, created)], verify: wrong ? `${wrong} devices came back without their 51 components` : null };
}
