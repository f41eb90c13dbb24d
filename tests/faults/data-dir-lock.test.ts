/**
 * The embedded data folder is one process's. Forty processes released at the same instant, five times
 * over (a race does not show every time on two cores), half of them naming it through a symlink: each
 * time exactly one gets the folder, and each refusal names the holder's pid. A lock file left behind naming a live, unrelated pid (pid reuse) does
 * not block, and kill -9 of the holder frees the folder.
 * Runs the compiled lock (dist/) in separate processes; needs no database, so it runs in both modes.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assertBuilt } from './compiled';

const ATTEMPT = path.join(__dirname, 'lock-attempt.cjs');

/** A lock-attempt process: its pid, and a way to wait for its next output line. */
class Attempter {
  readonly child: ChildProcessWithoutNullStreams;
  private lines: string[] = [];
  private waiting: Array<(line: string) => void> = [];
  private stderr = '';

  constructor() {
    this.child = spawn(process.execPath, [ATTEMPT], { stdio: ['pipe', 'pipe', 'pipe'] });
    let partial = '';
    this.child.stdout.on('data', (b: Buffer) => {
      const parts = (partial + b.toString()).split('\n');
      partial = parts.pop()!;
      for (const line of parts) {
        const w = this.waiting.shift();
        if (w) w(line);
        else this.lines.push(line);
      }
    });
    this.child.stderr.on('data', (b: Buffer) => (this.stderr += b.toString()));
  }

  get pid(): number {
    return this.child.pid!;
  }

  next(): Promise<string> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    return new Promise((resolve, reject) => {
      this.waiting.push(resolve);
      this.child.once('exit', (code) => reject(new Error(`lock attempt exited (${code}): ${this.stderr}`)));
    });
  }

  /** Tries to lock dir at the given instant (ms since the epoch); resolves with "acquired" or "refused ...". */
  tryAt(at: number, dir: string): Promise<string> {
    this.child.stdin.write(`${at} ${dir}\n`);
    return this.next();
  }

  end(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.stdin.end();
    });
  }
}

async function started(n: number): Promise<Attempter[]> {
  const all = Array.from({ length: n }, () => new Attempter());
  const ready = await Promise.all(all.map((a) => a.next()));
  expect(ready).toEqual(all.map(() => 'ready'));
  return all;
}

let tmp: string;
beforeAll(() => {
  assertBuilt();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'patchbay-lock-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const refusal = (dir: string, pid: number) =>
  `refused the embedded database in ${dir} is in use by process ${pid}; stop it first (or use DATABASE_URL for a shared server)`;

test('40 processes released at once, five times: each time exactly one acquires, the others are told who holds it', async () => {
  const attempts = await started(40);
  try {
    const rounds: Array<{ dir: string; link: string; results: string[] }> = [];
    for (let round = 0; round < 5; round++) {
      // Half the processes name the folder through a symlink: one folder, one lock, however it is spelt.
      const dir = fs.mkdtempSync(path.join(tmp, 'race-'));
      const link = `${dir}-link`;
      fs.symlinkSync(dir, link);
      const at = Date.now() + 500;
      rounds.push({ dir, link, results: await Promise.all(attempts.map((a, i) => a.tryAt(at, i % 2 ? link : dir))) });
    }
    const acquiredIn = (results: string[]) => attempts.filter((_, i) => results[i] === 'acquired');
    console.log(`data-folder lock: acquisitions per round of 40 synchronised attempts: ${rounds.map((r) => acquiredIn(r.results).length).join(', ')}`);
    for (const { dir, link, results } of rounds) {
      const acquired = acquiredIn(results);
      expect(acquired).toHaveLength(1);
      const holder = acquired[0]!.pid;
      expect(results.filter((r) => r !== 'acquired').sort()).toEqual(
        results.map((r, i) => (r === 'acquired' ? null : refusal(i % 2 ? link : dir, holder))).filter((r) => r !== null).sort(),
      );
    }
  } finally {
    await Promise.all(attempts.map((a) => a.end()));
  }
});

test('a lock file naming a live, unrelated pid does not block; kill -9 of the holder frees the folder', async () => {
  const dir = fs.mkdtempSync(path.join(tmp, 'stale-'));
  // What an earlier release left behind, now naming a pid the system reused for a live process (this one).
  fs.writeFileSync(path.join(dir, 'patchbay.pid'), String(process.pid));
  const [first, second] = await started(2);
  try {
    expect(await first!.tryAt(Date.now(), dir)).toBe('acquired');
    first!.child.kill('SIGKILL');
    await new Promise((resolve) => first!.child.once('exit', resolve));
    expect(await second!.tryAt(Date.now(), dir)).toBe('acquired');
  } finally {
    await Promise.all([first!.end(), second!.end()]);
  }
});
