import os from 'node:os';
import type { Config } from '../config';
import { SandboxPool, type SandboxPoolSettings } from './sandbox-pool';

/** A worker unused this long is stopped; the next task starts one again (about 0.2 s). */
const IDLE_MS = 60_000;
/** WebAssembly memory never shrinks: a worker whose heap grew past this (a large export) is replaced. */
const RETIRE_HEAP_BYTES = 96 * 1024 * 1024;

let settings: SandboxPoolSettings = { workers: os.availableParallelism(), queueLimit: 100, idleMs: IDLE_MS, retireHeapBytes: RETIRE_HEAP_BYTES };
let pool: SandboxPool | null = null;

/** The process's sandbox settings, from its configuration (the server and the event worker call this at start). */
export function configureSharedSandbox(config: Pick<Config, 'templateWorkers' | 'templateQueueLimit'>): void {
  settings = { ...settings, workers: config.templateWorkers, queueLimit: config.templateQueueLimit };
  pool?.reconfigure(settings);
}

/** The one sandbox pool of this process: templates and event-rule conditions share its workers. */
export function sharedSandbox(): SandboxPool {
  pool ??= new SandboxPool(settings);
  return pool;
}

/** Stops the shared pool's workers (a test file's end, a command's end); the next task starts a new pool. */
export async function closeSharedSandbox(): Promise<void> {
  const p = pool;
  pool = null;
  await p?.close();
}
