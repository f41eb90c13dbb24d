import cluster from 'node:cluster';
import http from 'node:http';
import os from 'node:os';
import { loadConfig } from './engine/config';
import { createApp } from './engine/app';
import { loadRegistry, openDatabase, openMigrated, packageVersion } from './engine/boot';
import { systemClock } from './engine/auth/clock';
import { handleInRequestScope } from './engine/storage/request-scope';

/**
 * Builds the app from the registry and listens. On a PostgreSQL server it runs PATCHBAY_WORKERS
 * processes (default: one per CPU) sharing the port, since serializing large pages is CPU work;
 * the embedded database belongs to one process, so it runs one.
 */
export async function serve(): Promise<void> {
  const config = loadConfig();
  const registry = loadRegistry(config.schemaDir);
  const workers = config.databaseUrl ? config.workers || os.availableParallelism() : 1;
  if (cluster.isPrimary && workers > 1) {
    const { db, applied } = await openMigrated(config);
    if (applied.length) console.log(`applied migrations: ${applied.join(', ')}`);
    await db.close();
    for (let i = 0; i < workers; i++) cluster.fork();
    cluster.on('exit', (worker, code, signal) => {
      if (signal !== 'SIGTERM' && signal !== 'SIGINT' && code !== 0) {
        console.error(`worker ${worker.process.pid} exited (${signal ?? code}); starting another`);
        cluster.fork();
      }
    });
    console.log(`Patchbay ${packageVersion()} serving http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}/api/ on PostgreSQL with ${workers} workers`);
    const stop = () => {
      for (const w of Object.values(cluster.workers ?? {})) w?.kill('SIGTERM');
      process.exit(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return;
  }
  const db = cluster.isWorker ? await openDatabase(config, 'serve') : (await openMigrated(config, 'serve')).db;
  const app = createApp({ registry, knex: db.knex, config, version: packageVersion(), embedded: db.embedded, clock: systemClock });
  // Each request runs in its own scope, so that the queries of a request whose client left can be cancelled.
  const server = http.createServer((req, res) => handleInRequestScope(req, res, () => app(req, res)));
  server.listen(config.port, config.host, () => {
    if (cluster.isWorker) return;
    const where = db.embedded ? `embedded PostgreSQL in ${config.dataDir}` : 'PostgreSQL';
    console.log(`Patchbay ${packageVersion()} serving http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}/api/ on ${where}`);
  });
  // Requests Node's parser refuses (headers over its size limit, malformed request lines) still get a JSON body.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const body = JSON.stringify({ detail: status === 431 ? 'Request headers too large.' : 'Bad request.' });
    socket.end(`HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
  const stop = () => {
    server.close();
    db.close().finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
