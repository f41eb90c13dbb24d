import cluster from 'node:cluster';
import type { Server } from 'node:http';
import { StartupError } from '../database/startup-error';

/** What the operator reads for the listen errors that a restart cannot cure. */
const REASONS: Record<string, string> = {
  EADDRINUSE: 'address already in use',
  EACCES: 'permission denied (a port below 1024 needs privileges)',
  EADDRNOTAVAIL: 'address not available on this machine',
};

/** Listens on host:port; a refusal is a StartupError naming the address, not an unhandled 'error' event. */
export function listenOrFail(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      const reason = (e.code && REASONS[e.code]) ?? e.message;
      reject(new StartupError(`cannot listen on ${host}:${port}: ${reason}`));
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

/** The message a worker sends its primary when it cannot start: the whole server fails, once. */
export interface StartupFailure {
  patchbay: 'startup-failed';
  message: string;
}

export function isStartupFailure(m: unknown): m is StartupFailure {
  return typeof m === 'object' && m !== null && (m as StartupFailure).patchbay === 'startup-failed' && typeof (m as StartupFailure).message === 'string';
}

/**
 * In a worker: tells the primary why it could not start, then exits 1. The worker prints nothing, so that N
 * workers failing alike make one line (the primary's), and a process manager sees one failure.
 */
export function reportStartupFailure(e: StartupError): Promise<never> {
  return new Promise(() => {
    const failure: StartupFailure = { patchbay: 'startup-failed', message: e.message };
    if (!cluster.isWorker || !process.send) {
      console.error(`patchbay: ${e.message}`);
      process.exit(1);
    }
    process.send(failure, undefined, {}, () => process.exit(1));
  });
}
