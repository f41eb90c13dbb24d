import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../cli/cli-support';
import { until } from '../../faults/fault-server';

export interface PrivateBouncer {
  /** postgres://postgres@127.0.0.1:<port>/<database> */
  url(database: string): string;
  stop(): Promise<void>;
}

/**
 * A PgBouncer of one test's own in transaction pooling mode, in front of the primary, with settings the
 * shared one (cluster.sh) does not have: what an operator who silenced PgBouncer's refusals would run.
 * PgBouncer refuses to run as root, so as root it runs as postgres (as cluster.sh does).
 */
export async function startPrivateBouncer(primaryUrl: string, settings: Record<string, string>): Promise<PrivateBouncer> {
  const primary = new URL(primaryUrl);
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'patchbay-bouncer-'));
  const ini = path.join(dir, 'pgbouncer.ini');
  fs.writeFileSync(path.join(dir, 'userlist.txt'), '"postgres" ""\n');
  fs.writeFileSync(ini, [
    '[databases]',
    `* = host=${primary.hostname} port=${primary.port || 5432}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${path.join(dir, 'userlist.txt')}`,
    'pool_mode = transaction',
    ...Object.entries(settings).map(([k, v]) => `${k} = ${v}`),
    '',
  ].join('\n'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) for (const f of [dir, ini, path.join(dir, 'userlist.txt')]) fs.chownSync(f, ...postgresIds());
  const child: ChildProcess = asRoot ? spawn('runuser', ['-u', 'postgres', '--', 'pgbouncer', ini], { stdio: 'ignore' }) : spawn('pgbouncer', [ini], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.once('exit', () => child.kill('SIGKILL'));
  await until('the private PgBouncer to listen', async () => {
    const net = await import('node:net');
    return new Promise<boolean>((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port }, () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
  });
  return {
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postgresIds(): [number, number] {
  const line = fs.readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('no postgres user to run PgBouncer as');
  const [, , uid, gid] = line.split(':');
  return [Number(uid), Number(gid)];
}
