/**
 * `serve` warns once at start when the PostgreSQL server runs without autovacuum, naming the setting and
 * what Patchbay does instead (engine/maintenance/start-maintenance.ts, called by server.ts as here: the
 * warning for the server, maintenance for the process).
 */
import { startTestApp, TEST_DATABASE_URL, type TestApp } from '../support/test-app';
import { loadConfig } from '../../engine/config';
import { autovacuumOffWarningFor, startMaintenance } from '../../engine/maintenance/start-maintenance';
import { autovacuumRuns } from '../../engine/maintenance/autovacuum-setting';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

async function start(env: Record<string, string>): Promise<{ lines: string[]; started: boolean }> {
  const lines: string[] = [];
  const config = { ...t.config, ...pick(loadConfig({ ...process.env, ...env })) };
  const warning = t.db.embedded ? null : await autovacuumOffWarningFor(t.knex, config);
  if (warning) lines.push(warning);
  const m = await startMaintenance({ db: t.knex, embedded: t.db.embedded, config, log: (l) => lines.push(l) });
  await m?.stop();
  return { lines, started: m !== null };
}

const pick = (c: ReturnType<typeof loadConfig>) => ({ maintenance: c.maintenance, maintenanceIntervalMs: c.maintenanceIntervalMs });

test('one line names autovacuum and what Patchbay does instead, only where autovacuum is off', async () => {
  const on = await start({ PATCHBAY_MAINTENANCE: 'on', PATCHBAY_MAINTENANCE_INTERVAL: '45' });
  expect(on.started).toBe(true);
  const off = TEST_DATABASE_URL ? !(await autovacuumRuns(t.knex)) : false;
  if (!off) {
    // The embedded database has no autovacuum to warn of (Patchbay stands in silently); a server with it on is fine.
    expect(on.lines).toEqual([]);
    return;
  }
  expect(on.lines).toHaveLength(1);
  expect(on.lines[0]).toMatch(/autovacuum is off.*SHOW autovacuum.*every 45 s.*PATCHBAY_MAINTENANCE=off/);
});

test('PATCHBAY_MAINTENANCE=off starts nothing, and on a server without autovacuum says nothing maintains the tables', async () => {
  const r = await start({ PATCHBAY_MAINTENANCE: 'off' });
  expect(r.started).toBe(false);
  const off = TEST_DATABASE_URL ? !(await autovacuumRuns(t.knex)) : false;
  expect(r.lines).toEqual(off ? [expect.stringMatching(/autovacuum is off.*PATCHBAY_MAINTENANCE=off: nothing keeps table statistics current/)] : []);
});
