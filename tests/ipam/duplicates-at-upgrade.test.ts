/**
 * Duplicates stored before unique IP space was enforced (ENFORCE_GLOBAL_UNIQUE off, or a VRF's
 * enforce_unique turned on later) are kept, and `patchbay migrate` / `patchbay check --data` name each
 * row that breaks the rule (reportBrokenRows), with the message a write to it would get.
 */
import { reportBrokenRows } from '../../engine/cli/check-data';
import { startTestApp, type TestApp } from '../support/test-app';

type Json = Record<string, unknown>;
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ env: { ENFORCE_GLOBAL_UNIQUE: 'false' } });
});
afterAll(async () => {
  await t.close();
});

async function create(path: string, body: Json): Promise<Json> {
  const res = await t.api.post(path).set(t.auth).send(body);
  if (res.status !== 201) throw new Error(`POST ${path} -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Json;
}

test('every row of a duplicate pair is named, with its message; a clean database reports nothing', async () => {
  const lines: string[] = [];
  const report = (line: string) => lines.push(line);
  expect(await reportBrokenRows(t.knex, t.registry, { ...t.config, enforceGlobalUnique: true }, report)).toBe(0);

  const a = await create('/api/ipam/ip-addresses/', { address: '192.0.2.1/24' });
  const b = await create('/api/ipam/ip-addresses/', { address: '192.0.2.1/32' });
  const vrf = await create('/api/ipam/vrfs/', { name: 'later', enforce_unique: false });
  const p = await create('/api/ipam/prefixes/', { prefix: '198.51.100.0/24', vrf: vrf.id });
  const q = await create('/api/ipam/prefixes/', { prefix: '198.51.100.0/24', vrf: vrf.id });

  // As stored, under the settings that let them in: nothing to tell.
  expect(await reportBrokenRows(t.knex, t.registry, t.config, report)).toBe(0);
  await t.api.patch(`/api/ipam/vrfs/${String(vrf.id)}/`).set(t.auth).send({ enforce_unique: true }).expect(200);
  expect(await reportBrokenRows(t.knex, t.registry, { ...t.config, enforceGlobalUnique: true }, report)).toBe(4);
  expect(lines.sort()).toEqual(
    [
      `ipam.ipaddress #${String(a.id)} (192.0.2.1/24): address: Duplicate IP address found in global table: 192.0.2.1/32`,
      `ipam.ipaddress #${String(b.id)} (192.0.2.1/32): address: Duplicate IP address found in global table: 192.0.2.1/24`,
      `ipam.prefix #${String(p.id)} (198.51.100.0/24): prefix: Duplicate prefix found in VRF later: 198.51.100.0/24`,
      `ipam.prefix #${String(q.id)} (198.51.100.0/24): prefix: Duplicate prefix found in VRF later: 198.51.100.0/24`,
    ].sort(),
  );
});
