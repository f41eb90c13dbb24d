import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/**
 * CPU seconds (user + system) a process has used so far, with its waited-for children's if asked (a
 * postmaster waits for every backend that exits, so its counters keep theirs); 0 once it is gone.
 */
function cpuSeconds(pid: number, withExitedChildren = false): number {
  try {
    // Fields after the command name, which is in parentheses and may hold spaces.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const own = Number(fields[11]) + Number(fields[12]);
    const exited = withExitedChildren ? Number(fields[13]) + Number(fields[14]) : 0;
    return (own + exited) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

function children(pid: number): number[] {
  return spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).stdout
    .split('\n').map((s) => Number(s.trim())).filter((n) => n > 0);
}

/**
 * CPU seconds of a process and its children, living and exited (a PostgreSQL postmaster with its backends
 * and background processes, a Patchbay primary and its workers).
 */
export function treeCpuSeconds(pid: number): number {
  return cpuSeconds(pid, true) + children(pid).reduce((sum, c) => sum + cpuSeconds(c), 0);
}
