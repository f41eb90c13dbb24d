/**
 * The first start of a server on a database with no user says how to make one, once, at start; a server
 * whose database has a user does not. (The anonymous 403's own hint is in tests/auth/first-user.test.ts.)
 */
import path from 'node:path';
import { runCli, startServer, tempDir } from './cli-support';

const ADVICE =
  'No user exists yet: create the first one with `npx patchbay createsuperuser --username <name> --password <password>`, ' +
  'after stopping this server (the embedded database is single-process). ' +
  'It prints an API token to send as "Authorization: Token <key>"; the user can also log in at /login/.';

describe('serve on a fresh embedded folder', () => {
  const data = tempDir('first');
  const env = { PATCHBAY_DATA_DIR: path.join(data.dir, 'pgdata') };
  afterAll(() => data.remove());

  test('prints how to create the first user, once', async () => {
    const server = await startServer(env);
    try {
      const anonymous = await fetch(`${server.url}/api/dcim/sites/`);
      expect(anonymous.status).toBe(403);
    } finally {
      await server.stop();
    }
    const lines = server.output().split('\n');
    expect(lines.filter((l) => l.includes('No user exists yet'))).toEqual([ADVICE]);
  });

  test('after createsuperuser, the next start says nothing about it', async () => {
    const made = runCli(['createsuperuser', '--username', 'admin', '--password', 'pw'], env);
    expect(made.status).toBe(0);
    const server = await startServer(env);
    await server.stop();
    expect(server.output()).not.toContain('No user exists yet');
    expect(server.output()).toContain('serving http://');
  });
});

// On a PostgreSQL server the command may run beside the server, and the line says so.
const onPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;
onPostgres('serve on a fresh PostgreSQL database', () => {
  test('prints how to create the first user, to run beside it', async () => {
    const { freshDatabase, databaseUrl } = await import('../faults/fault-server');
    const fresh = await freshDatabase();
    try {
      const server = await startServer({ DATABASE_URL: databaseUrl(fresh.name), PATCHBAY_WORKERS: '1' });
      await server.stop();
      const lines = server.output().split('\n').filter((l) => l.includes('No user exists yet'));
      expect(lines).toEqual([
        'No user exists yet: create the first one with `npx patchbay createsuperuser --username <name> --password <password>`, beside this server. ' +
          'It prints an API token to send as "Authorization: Token <key>"; the user can also log in at /login/.',
      ]);
    } finally {
      await fresh.drop();
    }
  });
});
