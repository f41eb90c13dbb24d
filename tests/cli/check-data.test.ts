/**
 * Duplicate addresses stored before unique IP space was enforced (written here by SQL, as an older
 * version would have left them): `check --data` names each row and exits 1; `migrate` warns of the same
 * rows on stderr and still succeeds. Embedded database folder, as the README's commands use it.
 */
import path from 'node:path';
import { connectDatabase } from '../../engine/database/connect';
import { runCli, tempDir } from './cli-support';

const data = tempDir('check-data');
const dataDir = path.join(data.dir, 'pgdata');

afterAll(() => {
  data.remove();
});

test('check --data and migrate name every row breaking a rule; a clean database passes', async () => {
  const migrated = runCli(['migrate'], { PATCHBAY_DATA_DIR: dataDir });
  expect(migrated.status).toBe(0);
  const clean = runCli(['check', '--data'], { PATCHBAY_DATA_DIR: dataDir });
  expect({ status: clean.status, out: clean.stdout.trim() }).toEqual({ status: 0, out: 'every stored row keeps the rules of its definition' });

  const db = await connectDatabase({ dataDir });
  await db.knex.raw(`INSERT INTO "ipam_ipaddress" ("address") VALUES ('192.0.2.1/24'), ('192.0.2.1/32'), ('192.0.2.2/24')`);
  await db.close();

  const found = runCli(['check', '--data'], { PATCHBAY_DATA_DIR: dataDir });
  expect(found.status).toBe(1);
  expect(found.stdout.trim().split('\n')).toEqual([
    'ipam.ipaddress #1 (192.0.2.1/24): address: Duplicate IP address found in global table: 192.0.2.1/32',
    'ipam.ipaddress #2 (192.0.2.1/32): address: Duplicate IP address found in global table: 192.0.2.1/24',
    '2 stored rows break a rule of their definition',
  ]);
  const again = runCli(['migrate'], { PATCHBAY_DATA_DIR: dataDir });
  expect(again.status).toBe(0);
  expect(again.stderr.trim().split('\n')).toEqual([
    'warning: ipam.ipaddress #1 (192.0.2.1/24): address: Duplicate IP address found in global table: 192.0.2.1/32',
    'warning: ipam.ipaddress #2 (192.0.2.1/32): address: Duplicate IP address found in global table: 192.0.2.1/24',
    'warning: 2 stored rows break a rule of their definition; writes to them will be refused until fixed',
  ]);
}, 180_000);
