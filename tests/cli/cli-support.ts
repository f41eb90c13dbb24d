import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');
export const BIN = path.join(ROOT, 'engine', 'cli', 'bin.cjs');

/**
 * The environment a child `patchbay` command gets: the caller's, minus anything that would point it at
 * another schema, migrations folder or database than the test asks for (and minus jest's NODE_OPTIONS).
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['PATCHBAY_SCHEMA_DIR', 'PATCHBAY_MIGRATIONS_DIR', 'PATCHBAY_DATA_DIR', 'DATABASE_URL', 'PORT', 'HOST', 'NODE_OPTIONS']) {
    delete env[name];
  }
  return { ...env, ...extra };
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node [nodeArgs] engine/cli/bin.cjs <args>` to completion, as `npx patchbay <args>` would. */
export function runCli(args: string[], env: Record<string, string> = {}, timeout = 120_000, nodeArgs: string[] = []): CliResult {
  const r = spawnSync(process.execPath, [...nodeArgs, BIN, ...args], { cwd: ROOT, env: cleanEnv(env), encoding: 'utf8', timeout });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A fresh temporary folder, removed by the returned function. */
export function tempDir(prefix: string): { dir: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `patchbay-${prefix}-`));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  url: string;
  pid: number;
  output(): string;
  /** SIGTERM (SIGKILL after 10 s); resolves with how the process ended. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `patchbay serve` as a child process and resolves once it says it is serving. */
export async function startServer(env: Record<string, string>, timeout = 90_000, nodeArgs: string[] = []): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, BIN, 'serve'], {
    cwd: ROOT,
    env: cleanEnv({ ...env, PORT: String(port), HOST: '127.0.0.1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const how = await exited;
      clearTimeout(timer);
      return how;
    }
    return exited;
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start within ${timeout} ms:\n${out}`)), timeout);
      const check = () => {
        if (/serving http:\/\//.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout.on('data', check);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`serve exited with ${String(code)} before serving:\n${out}`));
      });
    });
  } catch (e) {
    await stop();
    throw e;
  }
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, output: () => out, stop };
}
