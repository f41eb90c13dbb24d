import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { sleep } from '../stats';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const BIN = path.join(ROOT, 'engine', 'cli', 'bin.cjs');

/** One server instance behind the pretend load balancer: always the same port, so it can be restarted in place. */
export interface Instance {
  port: number;
  url: string;
  start(): Promise<void>;
  /** SIGTERM, and resolves once the process has exited (with its exit code). */
  stop(): Promise<number | null>;
}

export function instance(port: number, env: Record<string, string>, logFile: string): Instance {
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;
  const log = fs.createWriteStream(logFile, { flags: 'a' });
  process.once('exit', () => child?.kill('SIGKILL'));
  return {
    port,
    url,
    async start() {
      const c = spawn(process.execPath, [BIN, 'serve'], {
        cwd: ROOT,
        env: { ...process.env, NODE_ENV: 'production', ...env, PORT: String(port), HOST: '127.0.0.1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      c.stdout?.pipe(log, { end: false });
      c.stderr?.pipe(log, { end: false });
      child = c;
      const deadline = Date.now() + 120_000;
      while (Date.now() < deadline) {
        if (c.exitCode !== null) throw new Error(`instance on ${port} exited with ${c.exitCode} while starting (see ${logFile})`);
        const ok = await fetch(`${url}/api/status/`, { signal: AbortSignal.timeout(2000) }).then((r) => r.status === 200, () => false);
        if (ok) return;
        await sleep(100);
      }
      throw new Error(`instance on ${port} not ready after 120 s (see ${logFile})`);
    },
    async stop() {
      const c = child;
      if (!c || c.exitCode !== null) return c?.exitCode ?? null;
      const exited = new Promise<number | null>((resolve) => c.once('exit', (code) => resolve(code)));
      c.kill('SIGTERM');
      return exited;
    },
  };
}
