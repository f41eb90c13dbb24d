/**
 * Section 3 of the attacker's trial: an interface's /trace/, a port's /paths/, and the link_peers,
 * connected_endpoints and cable of every cabled object showed the objects along a cable in full, whether
 * or not the caller could view them: a hidden cable's label, colour and description, a hidden far end's
 * device and name. Now an object the caller may not view (no permission for its type, or outside its constraints)
 * is shown by its id and URL alone, in every one of those places, and lists still cost a constant number
 * of statements.
 */
import { startTestApp, type TestApp } from '../support/test-app';
import { grant, made, newUser, type User } from './support';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestApp;
/** interface a (device "left") – cable c1 – front port of a panel; its rear port – cable c2 – interface b (device "right"). */
let x: { a: number; b: number; front: number; rear: number; c1: number; c2: number; left: number; right: number; panel: number };
/** A direct cable c3 between interface p (device "left") and interface q (device "right"). */
let y: { p: number; q: number; c3: number };

const end = (object_type: string, object_id: number) => [{ object_type, object_id }];
const url = (path: string, id: number) => expect.stringMatching(new RegExp(`^http://[^/]+/api/${path}/${id}/$`));
/** What a hidden object must look like: its id and URL, nothing else. */
const hidden = (path: string, id: number) => ({ id, url: url(path, id) });

beforeAll(async () => {
  t = await startTestApp();
  const site = await made(t, '/api/dcim/sites/', { name: 'S', slug: 's' });
  const role = await made(t, '/api/dcim/device-roles/', { name: 'R', slug: 'r' });
  const mf = await made(t, '/api/dcim/manufacturers/', { name: 'M', slug: 'm' });
  const dt = await made(t, '/api/dcim/device-types/', { manufacturer: mf, model: 'T', slug: 't' });
  const device = (name: string) => made(t, '/api/dcim/devices/', { name, device_type: dt, role, site });
  const [left, right, panel] = [await device('left'), await device('right'), await device('panel')];
  const iface = (d: number, name: string) => made(t, '/api/dcim/interfaces/', { device: d, name, type: '1000base-t', description: `${name} on ${d}` });
  const a = await iface(left, 'a');
  const b = await iface(right, 'b');
  const rear = await made(t, '/api/dcim/rear-ports/', { device: panel, name: 'rear', type: 'lc', positions: 1 });
  const front = await made(t, '/api/dcim/front-ports/', { device: panel, name: 'front', type: 'lc', rear_port: rear, rear_port_position: 1 });
  const c1 = await made(t, '/api/dcim/cables/', { a_terminations: end('dcim.interface', a), b_terminations: end('dcim.frontport', front), label: 'hidden-label-1', color: 'ff0000', description: 'hidden-desc-1' });
  const c2 = await made(t, '/api/dcim/cables/', { a_terminations: end('dcim.rearport', rear), b_terminations: end('dcim.interface', b), label: 'hidden-label-2', color: '00ff00', description: 'hidden-desc-2' });
  x = { a, b, front, rear, c1, c2, left, right, panel };
  const p = await iface(left, 'p');
  const q = await iface(right, 'q');
  const c3 = await made(t, '/api/dcim/cables/', { a_terminations: end('dcim.interface', p), b_terminations: end('dcim.interface', q), label: 'hidden-label-3', description: 'hidden-desc-3' });
  y = { p, q, c3 };
});
afterAll(async () => {
  await t.close();
});

async function get(h: Record<string, string>, path: string): Promise<Json> {
  const res = await t.api.get(path).set(h);
  expect([path, res.status]).toEqual([path, 200]);
  return res.body as Json;
}

/** A user who may view interfaces of the device "left" only, and nothing else (no cables, no ports, no devices). */
async function leftOnly(): Promise<User> {
  const u = await newUser(t);
  await grant(t, { users: [u.id], types: ['dcim.interface'], actions: ['view'], constraints: { device_id: x.left } });
  return u;
}

describe('link_peers and connected_endpoints', () => {
  test('a far end outside the caller\'s constraints is its id and URL; the type and status still show', async () => {
    const u = await leftOnly();
    const p = await get(u.h, `/api/dcim/interfaces/${y.p}/`);
    expect(p.link_peers).toEqual([hidden('dcim/interfaces', y.q)]);
    expect(p.connected_endpoints).toEqual([hidden('dcim/interfaces', y.q)]);
    expect([p.link_peers_type, p.connected_endpoints_type, p.connected_endpoints_reachable]).toEqual(['dcim.interface', 'dcim.interface', true]);
    // Interface a's peer is a front port, a type the caller may not view at all; its connected endpoint b is outside the constraints.
    const a = await get(u.h, `/api/dcim/interfaces/${x.a}/`);
    expect(a.link_peers).toEqual([hidden('dcim/front-ports', x.front)]);
    expect(a.connected_endpoints).toEqual([hidden('dcim/interfaces', x.b)]);
    const text = JSON.stringify([p, a]);
    for (const word of ['right', 'panel', '"q"', '"front"', `q on ${x.right}`, 'hidden-label']) expect([word, text.includes(word)]).toEqual([word, false]);
    // The cable attached to the caller's own interface is along the link too: by id and URL, its label untold.
    expect([p.cable, a.cable]).toEqual([hidden('dcim/cables', y.c3), hidden('dcim/cables', x.c1)]);
  });

  test('the same in lists, brief-less and filtered, at a constant number of statements', async () => {
    const u = await leftOnly();
    const list = await get(u.h, '/api/dcim/interfaces/?ordering=id');
    expect(list.results.map((i: Json) => [i.id, i.link_peers])).toEqual([
      [x.a, [hidden('dcim/front-ports', x.front)]],
      [y.p, [hidden('dcim/interfaces', y.q)]],
    ]);
    const statements = async (query: string) => {
      t.queries.reset();
      await get(u.h, `/api/dcim/interfaces/${query}`);
      return t.queries.count;
    };
    expect(await statements('?limit=2')).toBe(await statements('?limit=1'));
  });

  test('a caller who may view the far end sees it as before; a superuser sees everything', async () => {
    const u = await newUser(t);
    await grant(t, { users: [u.id], types: ['dcim.interface'], actions: ['view'] });
    const p = await get(u.h, `/api/dcim/interfaces/${y.p}/`);
    expect(p.link_peers).toHaveLength(1);
    expect(p.link_peers[0]).toMatchObject({ id: y.q, name: 'q', device: { id: x.right, name: 'right' } });
    expect(p.connected_endpoints[0]).toMatchObject({ id: y.q, name: 'q' });
    // Cables are not among what the user may view.
    expect(p.cable).toEqual(hidden('dcim/cables', y.c3));
    const admin = await get(t.auth, `/api/dcim/interfaces/${x.a}/`);
    expect(admin.link_peers[0]).toMatchObject({ id: x.front, name: 'front' });
    expect(admin.cable).toMatchObject({ id: x.c1, label: 'hidden-label-1' });
  });
});

describe('trace and paths', () => {
  test('a trace shows the hidden cable and far end by id and URL; the visible near end in full', async () => {
    const u = await leftOnly();
    const trace = (await get(u.h, `/api/dcim/interfaces/${y.p}/trace/`)) as unknown as Json[][];
    expect(trace).toEqual([[[expect.objectContaining({ id: y.p, name: 'p' })], hidden('dcim/cables', y.c3), [hidden('dcim/interfaces', y.q)]]]);
    const long = (await get(u.h, `/api/dcim/interfaces/${x.a}/trace/`)) as unknown as Json[][];
    expect(long).toEqual([
      [[expect.objectContaining({ id: x.a, name: 'a' })], hidden('dcim/cables', x.c1), [hidden('dcim/front-ports', x.front)]],
      [[hidden('dcim/rear-ports', x.rear)], hidden('dcim/cables', x.c2), [hidden('dcim/interfaces', x.b)]],
    ]);
    expect(JSON.stringify(long)).not.toMatch(/hidden-(label|desc)|ff0000|00ff00/);
  });

  test('cables: a constrained permission shows the traced cable it covers and hides the other', async () => {
    const u = await newUser(t);
    await grant(t, { users: [u.id], types: ['dcim.interface', 'dcim.frontport', 'dcim.rearport'], actions: ['view'] });
    await grant(t, { users: [u.id], types: ['dcim.cable'], actions: ['view'], constraints: { label: 'hidden-label-1' } });
    const long = (await get(u.h, `/api/dcim/interfaces/${x.a}/trace/`)) as unknown as Json[][];
    expect(long[0]![1]).toMatchObject({ id: x.c1, label: 'hidden-label-1', color: 'ff0000', description: 'hidden-desc-1' });
    expect(long[1]![1]).toEqual(hidden('dcim/cables', x.c2));
    // The same cables as the ports' own cable field: the one the permission covers in its brief form.
    expect([long[0]![0]![0].cable, long[1]![0]![0].cable]).toEqual([expect.objectContaining({ id: x.c1, label: 'hidden-label-1' }), hidden('dcim/cables', x.c2)]);
    expect(long.map(([near, , far]) => [(near as Json[]).map((o) => o.name), (far as Json[]).map((o) => o.name)])).toEqual([[['a'], ['front']], [['rear'], ['b']]]);
  });

  test("a port's paths show the hops the caller may not view by id and URL", async () => {
    const u = await newUser(t);
    await grant(t, { users: [u.id], types: ['dcim.frontport', 'dcim.rearport'], actions: ['view'] });
    const paths = (await get(u.h, `/api/dcim/front-ports/${x.front}/paths/`)) as unknown as Json[];
    expect(paths).toHaveLength(2);
    const fromA = paths.find((p) => p.path[0][0].id === x.a)!;
    expect(fromA.path).toEqual([
      [hidden('dcim/interfaces', x.a)],
      [hidden('dcim/cables', x.c1)],
      [expect.objectContaining({ id: x.front, name: 'front' })],
      [expect.objectContaining({ id: x.rear, name: 'rear' })],
      [hidden('dcim/cables', x.c2)],
      [hidden('dcim/interfaces', x.b)],
    ]);
    expect(JSON.stringify(paths)).not.toMatch(/hidden-(label|desc)|"left"|"right"/);
  });

  test('the superuser\'s trace is unchanged: the traced cable in full', async () => {
    const trace = (await get(t.auth, `/api/dcim/interfaces/${y.p}/trace/`)) as unknown as Json[][];
    expect(trace[0]![1]).toEqual({ id: y.c3, url: url('dcim/cables', y.c3), type: null, status: 'connected', label: 'hidden-label-3', color: '', length: null, length_unit: null, description: 'hidden-desc-3' });
  });
});
