/**
 * The occupancy word: ipam.ipaddress keeps, per VRF and per block of 256 addresses, the number of distinct
 * hosts in use, and available-ips skips full blocks through it. After every kind of write (single and bulk
 * creates, duplicates under other masks, address and VRF changes, deletes) the counts must equal a recount
 * from the addresses, and available-ips must equal what an oracle computes from the address list alone,
 * for a prefix in the global table, one in a VRF and a global container (which sees every VRF).
 */
import { startTestApp, type TestApp } from '../support/test-app';

type Json = Record<string, unknown>;
let t: TestApp;

// Duplicates are what the counts must get right, so unique IP space is off (globally and in the VRF).
beforeAll(async () => {
  t = await startTestApp({ env: { ENFORCE_GLOBAL_UNIQUE: 'false' } });
});
afterAll(async () => {
  await t.close();
});

async function must(method: 'post' | 'patch' | 'delete', path: string, body?: unknown): Promise<Json | Json[]> {
  const res = await t.api[method](path).set(t.auth).send(body as object);
  if (res.status >= 300) throw new Error(`${method} ${path} ${JSON.stringify(body)} -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Json | Json[];
}

async function rows<T>(text: string): Promise<T[]> {
  const r = (await t.knex.raw(text)) as { rows?: T[] } | T[];
  return Array.isArray(r) ? r : r.rows!;
}

const toInt = (a: string) => a.split('.').reduce((n, o) => n * 256 + Number(o), 0);
const toAddr = (n: number) => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');

interface Ip {
  id: number;
  host: number;
  mask: number;
  vrf: number | null;
}
const ips = new Map<number, Ip>();

async function createIps(list: Array<{ host: number; mask: number; vrf: number | null }>): Promise<void> {
  const made = (await must('post', '/api/ipam/ip-addresses/', list.map((i) => ({ address: `${toAddr(i.host)}/${i.mask}`, vrf: i.vrf })))) as Json[];
  made.forEach((m, i) => ips.set(m.id as number, { id: m.id as number, ...list[i]! }));
}

/** What NetBox's Prefix.get_available_ips gives for a non-pool IPv4 prefix, from the addresses alone. */
function oracle(network: number, mask: number, vrf: number | null, everyVrf: boolean): string[] {
  const size = 2 ** (32 - mask);
  const used = new Set([...ips.values()].filter((i) => everyVrf || i.vrf === vrf).map((i) => i.host));
  const out: string[] = [];
  for (let h = network + 1; h < network + size - 1; h++) if (!used.has(h)) out.push(`${toAddr(h)}/${mask}`);
  return out;
}

const BASE = toInt('10.9.0.0');
let vrfA = 0;
const prefixes: Array<{ id: number; network: number; mask: number; vrf: number | null; everyVrf: boolean }> = [];

async function check(step: string): Promise<void> {
  const stored = await rows<{ vrf_id: string | null; block: string; hosts: number }>(
    `SELECT "vrf_id"::text, host("block") AS "block", "hosts" FROM "ipam_ipaddress_address_occupancy" ORDER BY 1 NULLS FIRST, "block"`,
  );
  const recount = await rows<{ vrf_id: string | null; block: string; hosts: number }>(
    `SELECT "vrf_id"::text, host(network(set_masklen("address", 24))) AS "block", count(DISTINCT host("address"))::int AS "hosts"
       FROM "ipam_ipaddress" GROUP BY 1, network(set_masklen("address", 24)) ORDER BY 1 NULLS FIRST, network(set_masklen("address", 24))`,
  );
  expect([step, stored]).toEqual([step, recount]);
  for (const p of prefixes) {
    const res = await t.api.get(`/api/ipam/prefixes/${p.id}/available-ips/?limit=1000`).set(t.auth);
    expect(res.status).toBe(200);
    const got = (res.body as Json[]).map((r) => r.address);
    expect([step, p.network, p.vrf, got]).toEqual([step, p.network, p.vrf, oracle(p.network, p.mask, p.vrf, p.everyVrf).slice(0, 1000)]);
  }
}

/** A small deterministic generator, so a failure names a step that can be replayed. */
function prng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

describe('occupancy of IP addresses', () => {
  beforeAll(async () => {
    vrfA = (await must('post', '/api/ipam/vrfs/', { name: 'occupancy-A', enforce_unique: false }) as Json).id as number;
    const add = async (prefix: string, vrf: number | null, status: string, everyVrf: boolean) => {
      const p = (await must('post', '/api/ipam/prefixes/', { prefix, vrf, status })) as Json;
      const [net, len] = prefix.split('/');
      prefixes.push({ id: p.id as number, network: toInt(net!), mask: Number(len), vrf, everyVrf });
    };
    await add('10.9.0.0/23', null, 'active', false);
    await add('10.9.0.0/23', vrfA, 'active', false);
    await add('10.9.0.0/22', null, 'container', true);
  });

  test('a full block is counted and skipped; the first free address lies past it', async () => {
    await createIps(Array.from({ length: 256 }, (_, i) => ({ host: BASE + 256 + i, mask: 32, vrf: null })));
    await check('block 10.9.1.0 filled');
    const [row] = await rows<{ hosts: number }>(`SELECT "hosts" FROM "ipam_ipaddress_address_occupancy" WHERE "block" = '10.9.1.0' AND "vrf_id" IS NULL`);
    expect(row!.hosts).toBe(256);
    await createIps(Array.from({ length: 255 }, (_, i) => ({ host: BASE + 1 + i, mask: 23, vrf: null })));
    await check('global /23 full');
    const full = await t.api.get(`/api/ipam/prefixes/${prefixes[0]!.id}/available-ips/`).set(t.auth);
    expect(full.body).toEqual([]);
    expect((await t.api.post(`/api/ipam/prefixes/${prefixes[0]!.id}/available-ips/`).set(t.auth).send({})).status).toBe(409);
  });

  test('duplicates under other masks count once; removing one copy keeps the host used', async () => {
    const dup = { host: BASE + 300, mask: 24, vrf: null };
    await createIps([dup, { ...dup, mask: 22 }]);
    await check('duplicates created');
    const copies = [...ips.values()].filter((i) => i.host === BASE + 300 && i.vrf === null);
    expect(copies).toHaveLength(3);
    for (const c of copies) {
      await must('delete', `/api/ipam/ip-addresses/${c.id}/`);
      ips.delete(c.id);
      await check(`copy ${c.id} of 10.9.1.44 deleted`);
    }
  });

  test('moving an address to another block or VRF recounts both sides', async () => {
    const moved = [...ips.values()].find((i) => i.host === BASE + 257)!;
    await must('patch', `/api/ipam/ip-addresses/${moved.id}/`, { address: '10.9.2.9/24' });
    ips.set(moved.id, { ...moved, host: BASE + 512 + 9, mask: 24 });
    await check('address moved to another block');
    const other = [...ips.values()].find((i) => i.host === BASE + 258)!;
    await must('patch', `/api/ipam/ip-addresses/${other.id}/`, { vrf: vrfA });
    ips.set(other.id, { ...other, vrf: vrfA });
    await check('address moved to VRF A');
    // A bulk change of fields that are not the address or the VRF leaves the counts as they are.
    await must('patch', '/api/ipam/ip-addresses/', [...ips.values()].slice(0, 20).map((i) => ({ id: i.id, description: 'touched' })));
    await check('descriptions changed');
  });

  test('a random sequence of single and bulk writes keeps counts and answers exact', async () => {
    const rnd = prng(7);
    const pick = <T>(list: T[]) => list[Math.floor(rnd() * list.length)]!;
    const hostIn = () => BASE + Math.floor(rnd() * 1024);
    for (let step = 0; step < 40; step++) {
      const kind = pick(['create', 'bulk-create', 'move', 'revrf', 'delete', 'bulk-delete'] as const);
      const existing = [...ips.values()];
      if (kind === 'create' || !existing.length) {
        await createIps([{ host: hostIn(), mask: pick([22, 24, 32]), vrf: pick([null, vrfA]) }]);
      } else if (kind === 'bulk-create') {
        const start = hostIn();
        await createIps(Array.from({ length: 1 + Math.floor(rnd() * 40) }, (_, i) => ({ host: Math.min(start + i, BASE + 1023), mask: 32, vrf: pick([null, vrfA]) })));
      } else if (kind === 'move') {
        const ip = pick(existing);
        const host = hostIn();
        await must('patch', `/api/ipam/ip-addresses/${ip.id}/`, { address: `${toAddr(host)}/32` });
        ips.set(ip.id, { ...ip, host, mask: 32 });
      } else if (kind === 'revrf') {
        const ip = pick(existing);
        const vrf = ip.vrf === null ? vrfA : null;
        await must('patch', `/api/ipam/ip-addresses/${ip.id}/`, { vrf });
        ips.set(ip.id, { ...ip, vrf });
      } else if (kind === 'delete') {
        const ip = pick(existing);
        await must('delete', `/api/ipam/ip-addresses/${ip.id}/`);
        ips.delete(ip.id);
      } else {
        const chosen = [...new Set(Array.from({ length: 1 + Math.floor(rnd() * 30) }, () => pick(existing).id))];
        await must('delete', '/api/ipam/ip-addresses/', chosen.map((id) => ({ id })));
        for (const id of chosen) ips.delete(id);
      }
      await check(`step ${step}: ${kind}`);
    }
  });
});
