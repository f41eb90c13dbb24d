import cluster from 'node:cluster';
import http from 'node:http';
import { loadConfig, serverProcesses } from './engine/config';
import { createApp } from './engine/app';
import { loadRegistry, openDatabase, openMigrated, packageVersion } from './engine/boot';
import { systemClock } from './engine/auth/clock';
import { handleInRequestScope } from './engine/database/request-scope';
import { superviseWorkers } from './engine/cli/cluster-supervisor';
import { trackInFlight } from './engine/cli/drain';
import { listenOrFail, reportStartupFailure } from './engine/cli/listen';
import { onStopSignal } from './engine/cli/stop-signals';
import { StartupError } from './engine/database/startup-error';
import { startDispatcher } from './engine/events/start-dispatcher';
import { anyUserExists, firstUserAdvice } from './engine/auth/first-user';
import { openReplicas } from './engine/database/open-replicas';
import { autovacuumOffWarningFor, startMaintenance } from './engine/maintenance/start-maintenance';

/** How long closing the database pool may take at exit (a frozen server would hold it forever). */
const POOL_CLOSE_MS = 5000;

const log = (line: string) => console.log(line);
const warn = (line: string) => console.warn(line);

/**
 * Builds the app from the registry and listens. On a PostgreSQL server it runs PATCHBAY_WORKERS
 * processes (default: one per CPU) sharing the port, since serializing large pages is CPU work;
 * the embedded database belongs to one process, so it runs one. SIGTERM drains (docs/operations.md).
 */
export async function serve(): Promise<void> {
  const config = loadConfig();
  const registry = loadRegistry(config.schemaDir);
  const workers = serverProcesses(process.env);
  const address = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}/api/`;
  if (cluster.isPrimary && workers > 1) {
    const { db, applied } = await openMigrated(config);
    if (applied.length) log(`applied migrations: ${applied.join(', ')}`);
    if (!(await anyUserExists(db.knex, registry))) log(firstUserAdvice(db.embedded));
    // Once for the server, not once per worker, and only once it serves: a server that cannot listen says that alone.
    const autovacuumWarning = await autovacuumOffWarningFor(db.knex, config);
    await db.close();
    // A worker serves through the drain delay before its grace period starts: the primary waits for both.
    superviseWorkers(workers, config.shutdownGraceMs + config.drainDelayMs, log, () => {
      log(`Patchbay ${packageVersion()} serving ${address} on PostgreSQL with ${workers} workers`);
      if (autovacuumWarning) warn(autovacuumWarning);
    });
    return;
  }
  let db;
  if (cluster.isWorker) {
    db = await openDatabase(config, 'serve');
  } else {
    const migrated = await openMigrated(config, 'serve');
    if (migrated.applied.length) log(`applied migrations: ${migrated.applied.join(', ')}`);
    db = migrated.db;
    if (!(await anyUserExists(db.knex, registry))) log(firstUserAdvice(db.embedded));
  }
  // With DATABASE_REPLICA_URLS, safe reads go to the standbys; the dispatcher keeps the primary's own handle.
  const { knex, replicas } = openReplicas(db.knex, config, db.embedded);
  // Statistics and dead rows (docs/maintenance.md), on the primary's own handle like the dispatcher.
  const maintenance = await startMaintenance({ db: db.knex, embedded: db.embedded, config, log: warn });
  const app = createApp({ registry, knex, config, version: packageVersion(), embedded: db.embedded, clock: systemClock, replicas, maintenance: maintenance ?? undefined });
  // Each request runs in its own scope, so that the queries of a request whose client left can be cancelled.
  const server = http.createServer((req, res) => inFlight.answerHealthCheck(req, res) || handleInRequestScope(req, res, () => app(req, res)));
  const inFlight = trackInFlight(server);
  // Requests Node's parser refuses (headers over its size limit, malformed request lines) still get a JSON body.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const body = JSON.stringify({ detail: status === 431 ? 'Request headers too large.' : 'Bad request.' });
    socket.end(`HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
  try {
    await listenOrFail(server, config.port, config.host);
  } catch (e) {
    await maintenance?.stop();
    await db.close();
    if (cluster.isWorker && e instanceof StartupError) return reportStartupFailure(e);
    throw e;
  }
  if (!cluster.isWorker) {
    log(`Patchbay ${packageVersion()} serving ${address} on ${db.embedded ? `embedded PostgreSQL in ${config.dataDir}` : 'PostgreSQL'}`);
    const autovacuumWarning = db.embedded ? null : await autovacuumOffWarningFor(db.knex, config);
    if (autovacuumWarning) warn(autovacuumWarning);
  }
  // Every server process dispatches the event outbox too, unless PATCHBAY_EVENTS_DISPATCH=false leaves it to `patchbay worker`.
  const dispatcher = config.eventsDispatch ? startDispatcher(db.knex, registry, config) : null;
  onStopSignal(async () => {
    const cut = await inFlight.drain(config.shutdownGraceMs, config.drainDelayMs);
    if (cut) console.error(`stopping: ${cut} requests still running after PATCHBAY_SHUTDOWN_GRACE were cut`);
    await dispatcher?.stop();
    await maintenance?.stop();
    await replicas?.set.close();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([db.close(), new Promise((resolve) => (timer = setTimeout(resolve, POOL_CLOSE_MS)))]);
    clearTimeout(timer);
  });
}
