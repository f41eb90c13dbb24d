import fs from 'node:fs';
import { spawn } from 'node:child_process';
import { BIN, ROOT, cleanEnv } from '../../cli/cli-support';

/** The JSON report `patchbay import --report FILE` writes: the importer's own type, read back from the file. */
export type { ImportReport, TypeCounts } from '../../../engine/import/run-import';
import type { ImportReport } from '../../../engine/import/run-import';

export interface ImportRun {
  status: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  /** The report file's content, or null when the run wrote none (killed, or failed early). */
  report: ImportReport | null;
  /** Whether the run was killed by the test (kill -9) before it ended by itself. */
  killed: boolean;
}

export interface RunOptions {
  /**
   * Kill the run with SIGKILL `delayMs` after its output first matches `progress` (it is writing objects),
   * or `atMs` after it started, whichever comes first: an import interrupted mid-run, as a crash or an OOM
   * kill would.
   */
  kill?: { progress: RegExp; delayMs: number; atMs: number };
  timeoutMs?: number;
}

/**
 * Runs `patchbay import ...` as a child process, as an operator would. Asynchronous on purpose: the source
 * is served by this very process, which must keep answering while the child reads it.
 */
export function runImport(args: string[], env: Record<string, string>, reportFile: string, opts: RunOptions = {}): Promise<ImportRun> {
  fs.rmSync(reportFile, { force: true });
  const child = spawn(process.execPath, [BIN, 'import', ...args, '--report', reportFile], { cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let killed = false;
  const timers: NodeJS.Timeout[] = [];
  const kill = (why: string) => {
    if (child.exitCode !== null || child.signalCode !== null || killed) return;
    killed = true;
    output += `\n[test: kill -9 ${why}]\n`;
    child.kill('SIGKILL');
  };
  let progressSeen = false;
  const onOutput = (b: Buffer) => {
    output += b.toString();
    if (opts.kill && !progressSeen && opts.kill.progress.test(output)) {
      progressSeen = true;
      timers.push(setTimeout(() => kill(`${opts.kill!.delayMs} ms after it printed progress`), opts.kill.delayMs));
    }
  };
  child.stdout.on('data', onOutput);
  child.stderr.on('data', onOutput);
  if (opts.kill) timers.push(setTimeout(() => kill(`${opts.kill!.atMs} ms after the start`), opts.kill.atMs));
  const timeoutMs = opts.timeoutMs ?? 480_000;
  timers.push(setTimeout(() => {
    output += `\n[test: no exit within ${timeoutMs} ms: killed]\n`;
    child.kill('SIGKILL');
  }, timeoutMs));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status, signal) => {
      for (const t of timers) clearTimeout(t);
      let report: ImportReport | null = null;
      if (fs.existsSync(reportFile)) {
        const text = fs.readFileSync(reportFile, 'utf8');
        try {
          report = JSON.parse(text) as ImportReport;
        } catch {
          output += `\n[test: the report is not JSON: ${text.slice(0, 500)}]\n`;
        }
      }
      resolve({ status, signal, output, report, killed });
    });
  });
}
