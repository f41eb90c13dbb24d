/**
 * The command line as the README shows it: createsuperuser on an embedded database folder, then serve on
 * that folder (one process after the other: the embedded database is single-process), and generate --check.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import { runCli, startServer, tempDir, type ServerProcess } from './cli-support';

describe('createsuperuser, then serve, on one embedded database folder', () => {
  const data = tempDir('data');
  const dataDir = path.join(data.dir, 'pgdata');
  const key = crypto.randomBytes(20).toString('hex');
  let server: ServerProcess | undefined;

  afterAll(async () => {
    await server?.stop();
    data.remove();
  });

  test('createsuperuser --token prints the key it stored', () => {
    const r = runCli(['createsuperuser', '--username', 'u', '--password', 'p', '--token', key], { PATCHBAY_DATA_DIR: dataDir });
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    expect(r.stdout.trim().split('\n').pop()).toBe(key);
  });

  test('serve on the same folder accepts that token', async () => {
    server = await startServer({ PATCHBAY_DATA_DIR: dataDir });
    expect(server.output()).toContain(`on embedded PostgreSQL in ${dataDir}`);

    const ok = await fetch(`${server.url}/api/dcim/sites/`, { headers: { Authorization: `Token ${key}` } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ count: 0, next: null, previous: null, results: [] });

    // The token can write (createsuperuser makes it write-enabled) and belongs to a superuser named u.
    const created = await fetch(`${server.url}/api/dcim/sites/`, {
      method: 'POST',
      headers: { Authorization: `Token ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'CLI site', slug: 'cli-site' }),
    });
    expect(created.status).toBe(201);

    const anonymous = await fetch(`${server.url}/api/dcim/sites/`);
    expect(anonymous.status).toBe(403);
    const wrong = await fetch(`${server.url}/api/dcim/sites/`, { headers: { Authorization: `Token ${'0'.repeat(40)}` } });
    expect(wrong.status).toBe(403);

    await server.stop();
    server = undefined;
  });

  test('createsuperuser without --token makes a new 40-hex key', () => {
    const r = runCli(['createsuperuser', '--username', 'u2', '--password', 'p'], { PATCHBAY_DATA_DIR: dataDir });
    expect(r.status).toBe(0);
    const made = r.stdout.trim().split('\n').pop()!;
    expect(made).toMatch(/^[0-9a-f]{40}$/);
    expect(made).not.toBe(key);
  });

  test('createsuperuser without --username or --password is a usage error', () => {
    const r = runCli(['createsuperuser', '--username', 'u'], { PATCHBAY_DATA_DIR: dataDir });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('createsuperuser needs --username and --password');
  });
});

test('generate --check passes on the repository', () => {
  const r = runCli(['generate', '--check']);
  expect(r.stderr).toBe('');
  expect(r.stdout).toContain('generated files are up to date');
  expect(r.status).toBe(0);
});

test('an unknown command prints the usage and exits 2', () => {
  const r = runCli(['frobnicate']);
  expect(r.status).toBe(2);
  expect(r.stderr).toContain('usage: patchbay <command>');
  expect(r.stderr).toContain('makemigrations [--check]');
});
