import cluster, { type Worker } from 'node:cluster';
import { isStartupFailure } from './listen';
import { onStopSignal } from './stop-signals';

/** A worker that dies sooner than this after starting is restarted after a pause (no tight crash loop). */
const QUICK_DEATH_MS = 1000;
const RESTART_PAUSE_MS = 1000;
/** After the grace period, how long the primary still waits for its workers before killing them. */
const EXIT_MARGIN_MS = 10_000;

/**
 * The cluster primary: starts `count` workers (serving() once they all listen), replaces any that dies, and on SIGTERM or SIGINT forwards
 * the signal and waits for every worker to drain and exit before exiting itself.
 *
 * Workers accept connections from the shared socket themselves (SCHED_NONE). With Node's default
 * round-robin the primary accepts and hands each connection to a worker, and after a kill -9 it handed
 * connections to the dead worker, where they hung. With SCHED_NONE a dead worker simply stops accepting;
 * connections wait in the kernel's queue for a live one.
 *
 * A worker that cannot start (it cannot listen on the address: a restart will not cure that) says so in a
 * message before it exits; the primary then prints that one line, stops the others and exits 1, so a process
 * manager sees the failure at once. A worker that dies later, or without that message, is replaced.
 */
export function superviseWorkers(count: number, graceMs: number, log: (line: string) => void, serving: () => void): void {
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  let stopping = false;
  const startedAt = new Map<Worker, number>();
  const replaces = new Map<Worker, number>();

  const fork = (replacing?: number) => {
    const w = cluster.fork();
    startedAt.set(w, Date.now());
    if (replacing !== undefined) replaces.set(w, replacing);
  };
  let listening = 0;
  cluster.on('listening', (w) => {
    if (++listening === count) serving();
    const old = replaces.get(w);
    if (old !== undefined) log(`worker ${w.process.pid} serving (replaces ${old})`);
    replaces.delete(w);
  });
  const failStartup = (message: string) => {
    if (stopping) return;
    stopping = true;
    console.error(`patchbay: ${message}`);
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w && !w.isDead());
    const exited = workers.map((w) => new Promise<void>((resolve) => w.once('exit', () => resolve())));
    for (const w of workers) w.process.kill('SIGTERM');
    const killer = setTimeout(() => {
      for (const w of workers) if (!w.isDead()) w.process.kill('SIGKILL');
    }, EXIT_MARGIN_MS);
    void Promise.all(exited).then(() => {
      clearTimeout(killer);
      process.exit(1);
    });
  };
  cluster.on('message', (_w, message: unknown) => {
    if (isStartupFailure(message)) failStartup(message.message);
  });
  cluster.on('exit', (w, code, signal) => {
    const lived = Date.now() - (startedAt.get(w) ?? 0);
    startedAt.delete(w);
    if (stopping) return;
    const pause = lived < QUICK_DEATH_MS ? RESTART_PAUSE_MS : 0;
    log(`worker ${w.process.pid} exited (${signal ?? code}); starting another${pause ? ` in ${pause / 1000} s` : ''}`);
    setTimeout(() => !stopping && fork(w.process.pid), pause);
  });
  for (let i = 0; i < count; i++) fork();

  onStopSignal(async (signal) => {
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w);
    log(`${signal}: stopping ${workers.length} workers (in-flight requests get up to ${graceMs / 1000} s)`);
    const exited = workers.map((w) => new Promise<void>((resolve) => (w.isDead() ? resolve() : w.once('exit', () => resolve()))));
    for (const w of workers) w.process.kill(signal);
    const killer = setTimeout(() => {
      for (const w of workers) if (!w.isDead()) w.process.kill('SIGKILL');
    }, graceMs + EXIT_MARGIN_MS);
    await Promise.all(exited);
    clearTimeout(killer);
  });
}
