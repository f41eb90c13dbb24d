import { excerpt, isObject, type ApiClient, type JsonObject, type JsonValue } from './http-client';
import type { Verifier } from './verify';

/**
 * The interface trace scenario's data: interface → front port → rear port → cable → rear port → front port
 * → interface, through two patch panels (NetBox's usual structured cabling). Built over HTTP before the
 * scenario runs, so the stored path comes from the server's own cable writes. Patchbay only.
 */
export interface TraceTopology {
  /** The interface whose trace is asked for. */
  origin: number;
  /** The interface at the far end. */
  far: number;
}

export async function buildTraceTopology(api: ApiClient): Promise<TraceTopology> {
  const tag = `bench-trace-${Date.now().toString(36)}`;
  const made = async (path: string, body: JsonObject): Promise<number> => {
    const res = await api.request('POST', path, body);
    if (res.status !== 201 || !isObject(res.json) || typeof res.json.id !== 'number') throw new Error(`POST ${path}: ${excerpt(res)}`);
    return res.json.id;
  };
  const site = await made('/api/dcim/sites/', { name: tag, slug: tag });
  const role = await made('/api/dcim/device-roles/', { name: tag, slug: tag });
  const manufacturer = await made('/api/dcim/manufacturers/', { name: tag, slug: tag });
  const deviceType = await made('/api/dcim/device-types/', { manufacturer, model: tag, slug: tag });
  const device = (name: string) => made('/api/dcim/devices/', { name: `${tag}-${name}`, device_type: deviceType, role, site });
  const iface = async (name: string) => made('/api/dcim/interfaces/', { device: await device(name), name: 'eth0', type: '1000base-t' });
  const panel = async (name: string) => {
    const d = await device(name);
    const rear = await made('/api/dcim/rear-ports/', { device: d, name: 'rear', type: 'lc', positions: 1 });
    const front = await made('/api/dcim/front-ports/', { device: d, name: 'front1', type: 'lc', rear_port: rear, rear_port_position: 1 });
    return { rear, front };
  };
  const [origin, far] = [await iface('a'), await iface('b')];
  const [p1, p2] = [await panel('p1'), await panel('p2')];
  const end = (object_type: string, object_id: number) => ({ object_type, object_id });
  const cable = (a: JsonObject, b: JsonObject) => made('/api/dcim/cables/', { a_terminations: [a], b_terminations: [b], status: 'connected' });
  await cable(end('dcim.interface', origin), end('dcim.frontport', p1.front));
  await cable(end('dcim.rearport', p1.rear), end('dcim.rearport', p2.rear));
  await cable(end('dcim.frontport', p2.front), end('dcim.interface', far));
  return { origin, far };
}

const ids = (v: JsonValue | undefined): number[] => (Array.isArray(v) ? v.map((o) => (isObject(o) && typeof o.id === 'number' ? o.id : -1)) : []);

/** The trace has three segments [near ends, cable, far ends], from the origin to the far interface. */
export function expectTrace(t: TraceTopology): Verifier {
  return (status, json) => {
    if (status !== 200) return { ok: false, note: `HTTP ${status}` };
    if (!Array.isArray(json) || json.length !== 3) return { ok: false, note: `${Array.isArray(json) ? json.length : 'no'} segments, expected 3` };
    const first = json[0];
    const last = json[2];
    if (!Array.isArray(first) || ids(first[0])[0] !== t.origin) return { ok: false, note: 'first segment does not start at the origin' };
    if (!Array.isArray(last) || ids(last[2])[0] !== t.far) return { ok: false, note: 'last segment does not end at the far interface' };
    return { ok: true, note: 'ok' };
  };
}
