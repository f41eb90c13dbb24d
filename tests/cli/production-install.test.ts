/**
 * The command line as a production install runs it: no devDependency, no test code and no TypeScript
 * source may be loaded (production-guard.cjs refuses them, as `npm prune --omit=dev` would leave them
 * absent). migrate, createsuperuser and serve on a fresh embedded data folder, then SIGTERM and a clean
 * exit. (.ci/run does the same from a real `npm ci && npm run build && npm prune --omit=dev` install.)
 */
import crypto from 'node:crypto';
import path from 'node:path';
import { runCli, startServer, tempDir } from './cli-support';

const GUARD = ['--require', path.join(__dirname, 'production-guard.cjs')];

describe('the production command line loads only production code', () => {
  const data = tempDir('prod');
  const env = { PATCHBAY_DATA_DIR: path.join(data.dir, 'pgdata') };
  afterAll(() => data.remove());

  test('migrate on a fresh folder', () => {
    const r = runCli(['migrate'], env, 120_000, GUARD);
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    expect(r.stdout).toContain('applied: 0001_initial.sql');
  });

  test('createsuperuser, then serve answers /api/status/ and the token, and exits 0 on SIGTERM', async () => {
    const key = crypto.randomBytes(20).toString('hex');
    const made = runCli(['createsuperuser', '--username', 'ops', '--password', 'pw', '--token', key], env, 120_000, GUARD);
    expect({ status: made.status, stderr: made.stderr }).toEqual({ status: 0, stderr: '' });

    const server = await startServer(env, 90_000, GUARD);
    try {
      const status = await fetch(`${server.url}/api/status/`);
      expect(status.status).toBe(200);
      const sites = await fetch(`${server.url}/api/dcim/sites/`, { headers: { Authorization: `Token ${key}` } });
      expect(sites.status).toBe(200);
    } finally {
      const how = await server.stop();
      expect(server.output()).not.toContain('production guard');
      expect(how).toEqual({ code: 0, signal: null });
    }
  });

  test('the production CLI has no bench command', () => {
    const r = runCli(['bench'], {}, 60_000, GUARD);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('usage: patchbay <command>');
    expect(r.stderr).not.toContain('bench');
  });
});
