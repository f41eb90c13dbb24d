import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Cable paths (NetBox 3.7's CablePath), stored when cables change and read by connected_endpoints, against
 * paths worked out by hand: a direct cable, two patch panels in series, a rear port of 4 positions, a
 * circuit between two sites, a power outlet → power port → power feed chain, and a cable removed mid-path.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestApp;
let site: Json;
let site2: Json;
let role: Json;
let dt: Json;
let n = 0;

async function post(p: string, body: unknown): Promise<Json> {
  const res = await t.api.post(`/api/${p}/`).set(t.auth).send(body as object);
  expect([p, res.status, res.status === 201 ? '' : res.text]).toEqual([p, 201, '']);
  return res.body as Json;
}
async function get(p: string): Promise<Json> {
  const res = await t.api.get(`/api/${p}/`).set(t.auth);
  expect([p, res.status]).toEqual([p, 200]);
  return res.body as Json;
}
const device = (s: Json = site) => post('dcim/devices', { name: `dev${++n}`, device_type: dt.id, role: role.id, site: s.id });
const iface = (d: Json) => post('dcim/interfaces', { device: d.id, name: `eth${++n}`, type: '1000base-t' });
const end = (type: string, o: Json) => ({ object_type: type, object_id: o.id });
const cable = (a: Array<{ object_type: string; object_id: number }>, b: Array<{ object_type: string; object_id: number }>, extra: Json = {}) => post('dcim/cables', { a_terminations: a, b_terminations: b, ...extra });
/** A patch panel: one rear port of `positions` positions and a front port on each. */
async function panel(positions = 1): Promise<{ rear: Json; fronts: Json[] }> {
  const d = await device();
  const rear = await post('dcim/rear-ports', { device: d.id, name: 'rear', type: 'lc', positions });
  const fronts: Json[] = [];
  for (let i = 1; i <= positions; i++) fronts.push(await post('dcim/front-ports', { device: d.id, name: `front${i}`, type: 'lc', rear_port: rear.id, rear_port_position: i }));
  return { rear, fronts };
}
/** What a pathed component shows of its path: [connected endpoint ids, their type, reachable]. */
async function connected(p: string, id: number): Promise<[number[] | null, string | null, boolean | null]> {
  const o = await get(`${p}/${id}`);
  return [o.connected_endpoints === null ? null : (o.connected_endpoints as Json[]).map((e) => e.id as number), o.connected_endpoints_type, o.connected_endpoints_reachable];
}

beforeAll(async () => {
  t = await startTestApp();
  site = await post('dcim/sites', { name: 'S1', slug: 's1' });
  site2 = await post('dcim/sites', { name: 'S2', slug: 's2' });
  role = await post('dcim/device-roles', { name: 'R', slug: 'r' });
  const mf = await post('dcim/manufacturers', { name: 'M', slug: 'm' });
  dt = await post('dcim/device-types', { manufacturer: mf.id, model: 'T', slug: 't' });
});
afterAll(async () => {
  await t.close();
});

test('a direct interface cable: each interface is the other\'s connected endpoint', async () => {
  const [a, b] = [await iface(await device()), await iface(await device())];
  await cable([end('dcim.interface', a)], [end('dcim.interface', b)]);
  expect(await connected('dcim/interfaces', a.id)).toEqual([[b.id], 'dcim.interface', true]);
  expect(await connected('dcim/interfaces', b.id)).toEqual([[a.id], 'dcim.interface', true]);
});

test('two patch panels in series: interface → front → rear → cable → rear → front → interface', async () => {
  const [a, b] = [await iface(await device()), await iface(await device())];
  const [p1, p2] = [await panel(), await panel()];
  await cable([end('dcim.interface', a)], [end('dcim.frontport', p1.fronts[0]!)]);
  // Half-built: the path from a stops at the first panel's rear port, incomplete: not reachable.
  expect(await connected('dcim/interfaces', a.id)).toEqual([null, null, false]);
  await cable([end('dcim.rearport', p1.rear)], [end('dcim.rearport', p2.rear)]);
  const last = await cable([end('dcim.frontport', p2.fronts[0]!)], [end('dcim.interface', b)], { status: 'planned' });
  // Complete, but through a planned cable: connected, not reachable (the path is not active).
  expect(await connected('dcim/interfaces', a.id)).toEqual([[b.id], 'dcim.interface', false]);
  expect(await connected('dcim/interfaces', b.id)).toEqual([[a.id], 'dcim.interface', false]);
  const patched = await t.api.patch(`/api/dcim/cables/${last.id}/`).set(t.auth).send({ status: 'connected' });
  expect(patched.status).toBe(200);
  expect(await connected('dcim/interfaces', a.id)).toEqual([[b.id], 'dcim.interface', true]);
  expect(await connected('dcim/interfaces', b.id)).toEqual([[a.id], 'dcim.interface', true]);
});

test('a rear port of 4 positions carries four separate paths, each front port to its counterpart', async () => {
  const [p1, p2] = [await panel(4), await panel(4)];
  await cable([end('dcim.rearport', p1.rear)], [end('dcim.rearport', p2.rear)]);
  const left: Json[] = [];
  const right: Json[] = [];
  for (let i = 0; i < 4; i++) {
    left.push(await iface(await device()));
    right.push(await iface(await device()));
    await cable([end('dcim.interface', left[i]!)], [end('dcim.frontport', p1.fronts[i]!)]);
    await cable([end('dcim.frontport', p2.fronts[i]!)], [end('dcim.interface', right[i]!)]);
  }
  for (let i = 0; i < 4; i++) {
    expect(await connected('dcim/interfaces', left[i]!.id)).toEqual([[right[i]!.id], 'dcim.interface', true]);
    expect(await connected('dcim/interfaces', right[i]!.id)).toEqual([[left[i]!.id], 'dcim.interface', true]);
  }
});

test('a circuit between two sites: interface → termination A … termination Z → interface', async () => {
  const provider = await post('circuits/providers', { name: 'P', slug: 'p' });
  const ctype = await post('circuits/circuit-types', { name: 'CT', slug: 'ct' });
  const circuit = await post('circuits/circuits', { cid: 'C1', provider: provider.id, type: ctype.id });
  const ta = await post('circuits/circuit-terminations', { circuit: circuit.id, term_side: 'A', site: site.id });
  const tz = await post('circuits/circuit-terminations', { circuit: circuit.id, term_side: 'Z', site: site2.id });
  const a = await iface(await device(site));
  const z = await iface(await device(site2));
  await cable([end('dcim.interface', a)], [end('circuits.circuittermination', ta)]);
  // The Z end is not cabled yet: the path ends at the Z site, incomplete.
  expect(await connected('dcim/interfaces', a.id)).toEqual([null, null, false]);
  await cable([end('circuits.circuittermination', tz)], [end('dcim.interface', z)]);
  expect(await connected('dcim/interfaces', a.id)).toEqual([[z.id], 'dcim.interface', true]);
  expect(await connected('dcim/interfaces', z.id)).toEqual([[a.id], 'dcim.interface', true]);
});

test('power: an outlet feeds a power port, and a PDU\'s power port draws from a power feed', async () => {
  const pdu = await device();
  const server = await device();
  const inlet = await post('dcim/power-ports', { device: pdu.id, name: 'inlet' });
  const outlet = await post('dcim/power-outlets', { device: pdu.id, name: 'out1', power_port: inlet.id });
  const psu = await post('dcim/power-ports', { device: server.id, name: 'psu1' });
  const panelObj = await post('dcim/power-panels', { site: site.id, name: 'PP' });
  const feed = await post('dcim/power-feeds', { power_panel: panelObj.id, name: 'F1' });
  await cable([end('dcim.powerport', inlet)], [end('dcim.powerfeed', feed)]);
  await cable([end('dcim.poweroutlet', outlet)], [end('dcim.powerport', psu)]);
  expect(await connected('dcim/power-ports', inlet.id)).toEqual([[feed.id], 'dcim.powerfeed', true]);
  expect(await connected('dcim/power-feeds', feed.id)).toEqual([[inlet.id], 'dcim.powerport', true]);
  expect(await connected('dcim/power-outlets', outlet.id)).toEqual([[psu.id], 'dcim.powerport', true]);
  expect(await connected('dcim/power-ports', psu.id)).toEqual([[outlet.id], 'dcim.poweroutlet', true]);
});

test('a cable removed mid-path leaves both ends incomplete, with no connected endpoint; a new one restores them', async () => {
  const [a, b] = [await iface(await device()), await iface(await device())];
  const [p1, p2] = [await panel(), await panel()];
  await cable([end('dcim.interface', a)], [end('dcim.frontport', p1.fronts[0]!)]);
  const trunk = await cable([end('dcim.rearport', p1.rear)], [end('dcim.rearport', p2.rear)]);
  await cable([end('dcim.frontport', p2.fronts[0]!)], [end('dcim.interface', b)]);
  expect(await connected('dcim/interfaces', a.id)).toEqual([[b.id], 'dcim.interface', true]);
  const del = await t.api.delete(`/api/dcim/cables/${trunk.id}/`).set(t.auth);
  expect(del.status).toBe(204);
  expect(await connected('dcim/interfaces', a.id)).toEqual([null, null, false]);
  expect(await connected('dcim/interfaces', b.id)).toEqual([null, null, false]);
  // The link to the panel stays: the interface is still cabled, only its path is broken.
  expect((await get(`dcim/interfaces/${a.id}`)).link_peers.map((p: Json) => p.id)).toEqual([p1.fronts[0]!.id]);
  await cable([end('dcim.rearport', p2.rear)], [end('dcim.rearport', p1.rear)]);
  expect(await connected('dcim/interfaces', a.id)).toEqual([[b.id], 'dcim.interface', true]);
});

/** A trace as ids: each segment [near end ids, cable id (null when none), far end ids]. */
async function traceIds(p: string, id: number): Promise<Array<[number[], number | null, number[]]>> {
  const segs = (await get(`${p}/${id}/trace`)) as unknown as Json[][];
  return segs.map(([near, cab, far]) => [(near as Json[]).map((o) => o.id as number), Array.isArray(cab) ? null : (cab as Json).id, (far as Json[]).map((o) => o.id as number)]);
}

test('deleting the device at one end takes its cable end along: the other end\'s path is traced again, incomplete', async () => {
  const far = await device();
  const [a, b] = [await iface(await device()), await iface(far)];
  const p1 = await panel();
  const c1 = await cable([end('dcim.interface', a)], [end('dcim.frontport', p1.fronts[0]!)]);
  const trunk = await cable([end('dcim.rearport', p1.rear)], [end('dcim.interface', b)]);
  // A rear port of one position continues at its front port: a reaches b, b reaches a.
  expect(await connected('dcim/interfaces', a.id)).toEqual([[b.id], 'dcim.interface', true]);
  expect(await connected('dcim/interfaces', b.id)).toEqual([[a.id], 'dcim.interface', true]);
  expect((await t.api.delete(`/api/dcim/devices/${far.id}/`).set(t.auth)).status).toBe(204);
  expect(await connected('dcim/interfaces', a.id)).toEqual([null, null, false]);
  // The trunk stays, with no far end: the path ends after it, empty.
  expect(await traceIds('dcim/interfaces', a.id)).toEqual([[[a.id], c1.id, [p1.fronts[0]!.id]], [[p1.rear.id], trunk.id, []]]);
  const through = (await get(`dcim/front-ports/${p1.fronts[0]!.id}/paths`)) as unknown as Json[];
  expect(through.map((x) => [x.path[0][0].id, x.path.length, x.is_complete])).toEqual([[a.id, 6, false]]);
});

test('a front port mapped to another rear port: the paths through it are traced again in the same request', async () => {
  const [a, b, c] = [await iface(await device()), await iface(await device()), await iface(await device())];
  const p1 = await panel();
  const rear2 = await post('dcim/rear-ports', { device: p1.rear.device.id, name: 'rear2', type: 'lc', positions: 1 });
  await cable([end('dcim.interface', a)], [end('dcim.frontport', p1.fronts[0]!)]);
  await cable([end('dcim.rearport', p1.rear)], [end('dcim.interface', b)]);
  await cable([end('dcim.rearport', rear2)], [end('dcim.interface', c)]);
  expect(await connected('dcim/interfaces', a.id)).toEqual([[b.id], 'dcim.interface', true]);
  // c's path stops at rear2, which no front port maps to yet.
  expect(await connected('dcim/interfaces', c.id)).toEqual([null, null, false]);
  const moved = await t.api.patch(`/api/dcim/front-ports/${p1.fronts[0]!.id}/`).set(t.auth).send({ rear_port: rear2.id });
  expect(moved.status).toBe(200);
  expect(await connected('dcim/interfaces', a.id)).toEqual([[c.id], 'dcim.interface', true]);
  expect(await connected('dcim/interfaces', c.id)).toEqual([[a.id], 'dcim.interface', true]);
  expect(await connected('dcim/interfaces', b.id)).toEqual([null, null, false]);
});

describe('trace and paths endpoints read the stored path', () => {
  test('through two patch panels: three segments, NetBox\'s nested objects and traced cable; each panel port lists both directions', async () => {
    const [a, b] = [await iface(await device()), await iface(await device())];
    const [p1, p2] = [await panel(), await panel()];
    const c1 = await cable([end('dcim.interface', a)], [end('dcim.frontport', p1.fronts[0]!)], { length: 2, length_unit: 'm', label: 'c1' });
    const c2 = await cable([end('dcim.rearport', p1.rear)], [end('dcim.rearport', p2.rear)]);
    const c3 = await cable([end('dcim.frontport', p2.fronts[0]!)], [end('dcim.interface', b)]);
    expect(await traceIds('dcim/interfaces', a.id)).toEqual([
      [[a.id], c1.id, [p1.fronts[0]!.id]],
      [[p1.rear.id], c2.id, [p2.rear.id]],
      [[p2.fronts[0]!.id], c3.id, [b.id]],
    ]);
    expect(await traceIds('dcim/interfaces', b.id)).toEqual([
      [[b.id], c3.id, [p2.fronts[0]!.id]],
      [[p2.rear.id], c2.id, [p1.rear.id]],
      [[p1.fronts[0]!.id], c1.id, [a.id]],
    ]);
    const [first] = (await get(`dcim/interfaces/${a.id}/trace`)) as unknown as Json[][];
    const brief = (await t.api.get(`/api/dcim/interfaces/${a.id}/?brief=1`).set(t.auth)).body as Json;
    // Each request is served on its own port: URLs are compared without their origin.
    const norm = (v: unknown): unknown => JSON.parse(JSON.stringify(v).replace(/http:\/\/127\.0\.0\.1:\d+/g, ''));
    expect(norm(first![0])).toEqual(norm([brief]));
    expect(norm(first![1])).toEqual({ id: c1.id, url: `/api/dcim/cables/${c1.id}/`, type: null, status: 'connected', label: 'c1', color: '', length: 2, length_unit: 'm', description: '' });
    const paths = (await get(`dcim/front-ports/${p1.fronts[0]!.id}/paths`)) as unknown as Json[];
    // Listed in path id order, which follows the order paths were stored: compared by origin.
    const seen = paths.map((x) => [x.path.length, x.path[0][0].id, x.path[8][0].id, x.is_active, x.is_complete, x.is_split]).sort((x, y) => x[1] - y[1]);
    expect(seen).toEqual([[9, a.id, b.id, true, true, false], [9, b.id, a.id, true, true, false]].sort((x, y) => (x[1] as number) - (y[1] as number)));
    expect(Object.keys(paths[0]!).sort()).toEqual(['id', 'is_active', 'is_complete', 'is_split', 'path']);
  });

  test('a trace costs the same statements whatever the length of the path; so do the paths through a port', async () => {
    const statements = async (path: string) => {
      t.queries.reset();
      await get(path);
      return t.queries.count;
    };
    const [a, b] = [await iface(await device()), await iface(await device())];
    await cable([end('dcim.interface', a)], [end('dcim.interface', b)]);
    const direct = await statements(`dcim/interfaces/${a.id}/trace`);
    const [x, y] = [await iface(await device()), await iface(await device())];
    const [p1, p2] = [await panel(), await panel()];
    await cable([end('dcim.interface', x)], [end('dcim.frontport', p1.fronts[0]!)]);
    await cable([end('dcim.rearport', p1.rear)], [end('dcim.rearport', p2.rear)]);
    await cable([end('dcim.frontport', p2.fronts[0]!)], [end('dcim.interface', y)]);
    expect(await statements(`dcim/interfaces/${x.id}/trace`)).toBe(direct);
    const [q1, q2] = [await panel(4), await panel(4)];
    await cable([end('dcim.rearport', q1.rear)], [end('dcim.rearport', q2.rear)]);
    await cable([end('dcim.interface', await iface(await device()))], [end('dcim.frontport', q1.fronts[0]!)]);
    const one = await statements(`dcim/rear-ports/${q1.rear.id}/paths`);
    for (let i = 1; i < 4; i++) await cable([end('dcim.interface', await iface(await device()))], [end('dcim.frontport', q1.fronts[i]!)]);
    expect((await get(`dcim/rear-ports/${q1.rear.id}/paths`)) as unknown as Json[]).toHaveLength(4);
    expect(await statements(`dcim/rear-ports/${q1.rear.id}/paths`)).toBe(one);
  });

  test('a path broken mid-way ends with an empty cable and far end; a rear port of 4 positions carries 8 paths', async () => {
    const a = await iface(await device());
    const p1 = await panel();
    const c1 = await cable([end('dcim.interface', a)], [end('dcim.frontport', p1.fronts[0]!)]);
    expect(await traceIds('dcim/interfaces', a.id)).toEqual([[[a.id], c1.id, [p1.fronts[0]!.id]], [[p1.rear.id], null, []]]);
    const [q1, q2] = [await panel(4), await panel(4)];
    await cable([end('dcim.rearport', q1.rear)], [end('dcim.rearport', q2.rear)]);
    for (let i = 0; i < 4; i++) {
      await cable([end('dcim.interface', await iface(await device()))], [end('dcim.frontport', q1.fronts[i]!)]);
      await cable([end('dcim.frontport', q2.fronts[i]!)], [end('dcim.interface', await iface(await device()))]);
    }
    const through = (await get(`dcim/rear-ports/${q1.rear.id}/paths`)) as unknown as Json[];
    expect(through.map((x) => [x.path.length, x.is_complete])).toEqual(Array(8).fill([9, true]));
  });

  test('a circuit whose far end is not cabled ends at its site, after an empty cable', async () => {
    const provider = await post('circuits/providers', { name: 'P2', slug: 'p2' });
    const ctype = await post('circuits/circuit-types', { name: 'CT2', slug: 'ct2' });
    const circuit = await post('circuits/circuits', { cid: 'C2', provider: provider.id, type: ctype.id });
    const ta = await post('circuits/circuit-terminations', { circuit: circuit.id, term_side: 'A', site: site.id });
    const tz = await post('circuits/circuit-terminations', { circuit: circuit.id, term_side: 'Z', site: site2.id });
    const a = await iface(await device(site));
    const c = await cable([end('dcim.interface', a)], [end('circuits.circuittermination', ta)]);
    expect(await traceIds('dcim/interfaces', a.id)).toEqual([[[a.id], c.id, [ta.id]], [[tz.id], null, [site2.id]]]);
    const through = (await get(`circuits/circuit-terminations/${tz.id}/paths`)) as unknown as Json[];
    expect(through.map((x) => [x.path.length, x.is_complete])).toEqual([[5, false]]);
  });
});

test('connected-device: the device across the named interface\'s path, 404 when that end is not an interface, 400 without both names', async () => {
  const [d1, d2] = [await device(), await device()];
  const [a, b] = [await iface(d1), await iface(d2)];
  const p1 = await panel();
  await cable([end('dcim.interface', a)], [end('dcim.frontport', p1.fronts[0]!)]);
  const ask = (dev: Json, i: Json) => t.api.get(`/api/dcim/connected-device/?peer_device=${encodeURIComponent(dev.name)}&peer_interface=${encodeURIComponent(i.name)}`).set(t.auth);
  // Only as far as the panel's rear port: no interface at the far end.
  expect((await ask(d1, a)).status).toBe(404);
  await cable([end('dcim.rearport', p1.rear)], [end('dcim.interface', b)]);
  const got = await ask(d1, a);
  expect([got.status, got.body.id, got.body.name]).toEqual([200, d2.id, d2.name]);
  expect(Object.keys(got.body as object).sort()).toEqual(Object.keys(await get(`dcim/devices/${d2.id}`)).sort());
  expect((await ask(d2, b)).body.id).toBe(d1.id);
  const missing = await t.api.get(`/api/dcim/connected-device/?peer_device=${encodeURIComponent(d1.name)}`).set(t.auth);
  expect([missing.status, missing.body]).toEqual([400, { detail: 'Request must include "peer_device" and "peer_interface" filters.' }]);
  expect((await t.api.get('/api/dcim/connected-device/?peer_device=nope&peer_interface=x').set(t.auth)).status).toBe(404);
});
