import { spawn, execFile, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { sleep } from './stats';

const ROOT = path.resolve(__dirname, '..', '..');

/** The CLI of a checkout (this one by default; another built one to compare, as bench:events --root does). */
function binOf(root: string): string {
  return path.join(root, 'engine', 'cli', 'bin.cjs');
}

/** The real server, started as `node engine/cli/bin.cjs serve` on a free port of 127.0.0.1. */
export interface ServerProcess {
  baseUrl: string;
  token: string;
  pid: number;
  /** The server's stdout and stderr so far. */
  log(): string;
  /** Null while it runs; how it ended otherwise (an exit the bench did not ask for is a crash). */
  exited(): string | null;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => (port ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

function childEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: process.env.NODE_ENV || 'production' };
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** `createsuperuser` in a child process (before the server starts: PGlite is single-process); returns the token. */
export function createSuperuser(env: Record<string, string | undefined>, root = ROOT): Promise<string> {
  const token = crypto.randomBytes(20).toString('hex');
  const username = `bench_${crypto.randomBytes(4).toString('hex')}`;
  const password = crypto.randomBytes(16).toString('hex');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [binOf(root), 'createsuperuser', '--username', username, '--password', password, '--token', token],
      { cwd: root, env: childEnv(env), timeout: 180_000 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`createsuperuser failed: ${err.message}\n${stdout}${stderr}`));
        else resolve(token);
      },
    );
  });
}

async function waitReady(baseUrl: string, child: ChildProcess, log: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with code ${child.exitCode} before it was ready:\n${log()}`);
    try {
      const res = await fetch(`${baseUrl}/api/status/`, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(`server not ready after ${timeoutMs / 1000} s:\n${log()}`);
}

export async function startServer(env: Record<string, string | undefined>, token: string, logFile: string, root = ROOT): Promise<ServerProcess> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const out = fs.createWriteStream(logFile);
  let buffer = '';
  const child = spawn(process.execPath, [binOf(root), 'serve'], {
    cwd: root,
    env: childEnv({ ...env, PORT: String(port), HOST: '127.0.0.1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const capture = (chunk: Buffer) => {
    out.write(chunk);
    buffer += chunk.toString('utf8');
    if (buffer.length > 200_000) buffer = buffer.slice(-100_000);
  };
  let exitedHow: string | null = null;
  let stopping = false;
  child.once('exit', (code, signal) => {
    exitedHow = `${stopping ? 'stopped' : 'EXITED UNEXPECTEDLY'} (code ${code}, signal ${signal})`;
    if (!stopping) capture(Buffer.from(`\n[bench] server process ${exitedHow}\n`));
  });
  child.stdout?.on('data', capture);
  child.stderr?.on('data', capture);
  // If the bench dies, the server must not outlive it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const stop = async () => {
    stopping = true;
    process.removeListener('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    await new Promise<void>((resolve) => out.end(() => resolve()));
  };
  try {
    await waitReady(baseUrl, child, () => buffer, 120_000);
  } catch (e) {
    await stop();
    throw e;
  }
  return { baseUrl, token, pid: child.pid ?? -1, log: () => buffer, exited: () => exitedHow, stop };
}
