import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { SandboxTask, TaskResult, WorkerReply } from './sandbox-protocol';

export interface SandboxPoolSettings {
  /** Most worker threads (each one QuickJS machine); started when needed, stopped after idleMs unused. */
  workers: number;
  /** Tasks that may wait beyond the `workers` running; one more is refused at once (busy) instead of queueing without end. */
  queueLimit: number;
  /** Milliseconds a worker may sit unused before it is stopped (0: kept). */
  idleMs: number;
  /** A worker whose WebAssembly heap grew past this many bytes is replaced after its task (that memory never shrinks). */
  retireHeapBytes: number;
}

/** What a task that did not get an answer from its worker is told (the worker died, or overran the backstop). */
export type Unanswered = (why: 'deadline' | 'crash', detail: string) => TaskResult;

interface Pending {
  task: SandboxTask;
  /** Milliseconds after which the worker is stopped from outside (0: none): the bound on anything the machine's own deadline cannot interrupt. */
  backstopMs: number;
  unanswered: Unanswered;
  resolve: (r: TaskResult) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  current: Pending | null;
  backstop: NodeJS.Timeout | null;
  idle: NodeJS.Timeout | null;
}

/** Worker threads get a native stack far above QuickJS's own bound, so the machine's stack check always comes first. */
const WORKER_LIMITS = { stackSizeMb: 32, maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 32 };

const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
if (workerData.loader) require(workerData.loader);
require(workerData.entry);
`;

/**
 * The worker script: the compiled one beside this file in production; from the TypeScript sources (the
 * test suite) through tsx, a development dependency, so tests exercise the code they read.
 */
function workerEntry(): { entry: string; loader: string | null } {
  const compiled = path.join(__dirname, 'sandbox-worker.js');
  if (fs.existsSync(compiled)) return { entry: compiled, loader: null };
  return { entry: path.join(__dirname, 'sandbox-worker.ts'), loader: require.resolve('tsx/cjs') };
}

/**
 * A fixed pool of sandbox worker threads with a bounded queue. Tasks are data in and data out; a worker
 * that dies, or does not answer within a task's backstop, is stopped and replaced, and only its own task
 * fails. Workers are unreferenced: they never keep the process alive.
 */
export class SandboxPool {
  private readonly slots = new Set<Slot>();
  private readonly queue: Pending[] = [];
  private closed = false;

  constructor(private settings: SandboxPoolSettings) {}

  /** New settings apply to workers started and tasks queued from now on. */
  reconfigure(settings: SandboxPoolSettings): void {
    this.settings = settings;
  }

  /** Runs a task on a worker; `busy()` is the answer at once when the queue is full, `unanswered()` when no worker answered. */
  run<R extends TaskResult>(task: SandboxTask, backstopMs: number, unanswered: (why: 'deadline' | 'crash', detail: string) => R, busy: () => R): Promise<R> {
    if (this.closed) return Promise.resolve(unanswered('crash', 'the sandbox is closed'));
    const { busy: running, queued } = this.stats();
    if (running + queued >= this.settings.workers + this.settings.queueLimit) return Promise.resolve(busy());
    return new Promise<R>((resolve) => {
      // The worker answers a task with the result type of its kind.
      this.queue.push({ task, backstopMs, unanswered, resolve: resolve as (r: TaskResult) => void });
      this.pump();
    });
  }

  /** Workers started, busy, and tasks waiting: for status and the benchmark. */
  stats(): { workers: number; busy: number; queued: number } {
    let busy = 0;
    for (const s of this.slots) if (s.current) busy++;
    return { workers: this.slots.size, busy, queued: this.queue.length };
  }

  /** Stops every worker; tasks still waiting or running are answered as failed. */
  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) p.resolve(p.unanswered('crash', 'the sandbox was closed'));
    await Promise.all([...this.slots].map((s) => this.stop(s, 'the sandbox was closed')));
  }

  private idleSlot(): Slot | undefined {
    for (const s of this.slots) if (s.ready && !s.current) return s;
    return undefined;
  }

  private pump(): void {
    while (this.queue.length) {
      const slot = this.idleSlot();
      if (!slot) {
        const starting = [...this.slots].filter((s) => !s.ready).length;
        if (this.slots.size < this.settings.workers && starting < this.queue.length) this.start();
        return;
      }
      this.assign(slot, this.queue.shift()!);
    }
  }

  private assign(slot: Slot, p: Pending): void {
    if (slot.idle) clearTimeout(slot.idle);
    slot.idle = null;
    slot.current = p;
    slot.worker.ref();
    if (p.backstopMs) {
      slot.backstop = setTimeout(() => void this.stop(slot, null, p.unanswered('deadline', `no answer within ${p.backstopMs / 1000} seconds`)), p.backstopMs);
      slot.backstop.unref();
    }
    slot.worker.postMessage(p.task);
  }

  private start(): void {
    const { entry, loader } = workerEntry();
    const worker = new Worker(BOOTSTRAP, {
      eval: true,
      workerData: { entry, loader, retireHeapBytes: this.settings.retireHeapBytes },
      resourceLimits: WORKER_LIMITS,
      // Nothing of the server's environment (DATABASE_URL...) is handed to the thread.
      env: {},
    });
    const slot: Slot = { worker, ready: false, current: null, backstop: null, idle: null };
    this.slots.add(slot);
    worker.on('message', (m: WorkerReply | 'ready') => {
      if (m === 'ready') {
        slot.ready = true;
        this.rest(slot);
        this.pump();
        return;
      }
      const p = slot.current;
      if (slot.backstop) clearTimeout(slot.backstop);
      slot.backstop = null;
      slot.current = null;
      p?.resolve(m.result);
      if (m.retire) void this.stop(slot, null);
      else this.rest(slot);
      this.pump();
    });
    worker.on('error', (e: Error & { code?: string }) => {
      const why = e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'it needed more memory than a rendering may use' : e.message;
      void this.stop(slot, why);
    });
    worker.on('exit', () => void this.stop(slot, 'the sandbox worker stopped'));
  }

  /**
   * A worker without a task waits, unreferenced (a thread starting or at work keeps the process alive
   * for the task waiting on it; an idle one never does); past idleMs it is stopped, giving its memory back.
   */
  private rest(slot: Slot): void {
    if (slot.current) return;
    slot.worker.unref();
    if (!this.settings.idleMs) return;
    if (slot.idle) clearTimeout(slot.idle);
    slot.idle = setTimeout(() => void this.stop(slot, null), this.settings.idleMs);
    slot.idle.unref();
  }

  /**
   * Stops a worker and forgets it. Its task, if any, is answered with `answer`, or as a crash when `why`
   * is given. A task that never reached a started worker (it failed to start) fails the oldest waiting task,
   * so a worker that cannot start does not leave callers waiting for ever.
   */
  private async stop(slot: Slot, why: string | null, answer?: TaskResult): Promise<void> {
    if (!this.slots.delete(slot)) return;
    if (slot.backstop) clearTimeout(slot.backstop);
    if (slot.idle) clearTimeout(slot.idle);
    const p = slot.current;
    slot.current = null;
    if (p) p.resolve(answer ?? p.unanswered('crash', why ?? 'the sandbox worker stopped'));
    else if (!slot.ready && why) {
      const waiting = this.queue.shift();
      waiting?.resolve(waiting.unanswered('crash', why));
    }
    await slot.worker.terminate();
    if (!this.closed) this.pump();
  }
}
