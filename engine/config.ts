import os from 'node:os';
import path from 'node:path';
import { packageRoot } from './package-root';
import { DEFAULT_DENY_NETWORKS, parseNetworks } from './events/network-policy';
import { parsePoolMode, type PoolMode } from './database/pool-mode';

/** Runtime settings, read from the environment under NetBox's names where NetBox has one. */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  /**
   * Streaming-replication standbys safe reads may run on (docs/scaling-out/replicas.md); empty: every
   * statement on databaseUrl. Ignored with the embedded database.
   */
  databaseReplicaUrls: string[];
  /** Milliseconds a standby may be behind the primary and still answer reads. */
  replicaMaxLagMs: number;
  /** Milliseconds a user's write lease lasts: their reads go to the primary while it is visible. */
  replicaWriteLeaseMs: number;
  dataDir: string;
  paginateCount: number;
  /** 0 lifts the cap. */
  maxPageSize: number;
  /**
   * `<app>.<model>` labels anyone may read; '*' among them stands for every type that is not private
   * (NetBox's EXEMPT_EXCLUDE_MODELS), and a private type named beside it is exempt too.
   */
  exemptViewPermissions: string[];
  loginRequired: boolean;
  maintenanceMode: boolean;
  allowTokenRetrieval: boolean;
  /** Addresses whose X-Forwarded-For is believed. */
  trustedProxies: string[];
  /** Server processes on a PostgreSQL server (0: one per CPU); the embedded database always uses one. */
  workers: number;
  /** Largest request body in bytes (Django's DATA_UPLOAD_MAX_MEMORY_SIZE); anonymous forms take far less. */
  dataUploadMaxMemorySize: number;
  /** Host names the server answers for (Django's ALLOWED_HOSTS): '*' for any, '.example.com' for a domain and its subdomains. */
  allowedHosts: string[];
  /** Most objects one bulk request may name (0: no limit). */
  bulkMaxObjects: number;
  /** Milliseconds one template (export, config, render) may take to render; 0: no limit. */
  templateTimeoutMs: number;
  /** Bytes a rendered template may produce. */
  templateMaxOutput: number;
  /** Bytes of heap one rendering's sandbox may use, its context data included. */
  templateMaxMemory: number;
  /** Sandbox worker threads of a process (templates, event-rule conditions); default: the CPUs shared among the server processes. */
  templateWorkers: number;
  /** Renderings that may wait for a sandbox worker; more are refused (503) rather than queued without end. */
  templateQueueLimit: number;
  /** Most objects ?export= renders in one response (0: no limit). */
  exportMaxObjects: number;
  /** Where uploaded files (image attachments) are kept: NetBox's MEDIA_ROOT. Every instance must see the same folder. */
  mediaRoot: string;
  /** Bytes one uploaded image may have. */
  imageMaxSize: number;
  /** Refuse unknown names in write bodies (400) instead of ignoring them as NetBox does. */
  rejectUnknownFields: boolean;
  /** A list query parameter that names no filter is a 400 naming it, instead of being ignored as NetBox ignores it. */
  strictFiltering: boolean;
  /**
   * Whether a plain single create or change is written as one statement (engine/writes/one-statement-writes.ts);
   * false: every write is transactional. The two give the same rows, change log and events (tests prove it).
   */
  oneStatementWrites: boolean;
  /** NetBox's ENFORCE_GLOBAL_UNIQUE: duplicate prefixes and IP addresses are refused in the global table (no VRF) too. */
  enforceGlobalUnique: boolean;
  /** Where definitions and migrations are read from. */
  schemaDir: string;
  migrationsDir: string;

  // Operations (docs/operations.md): database limits, waiting for the database at start, draining on SIGTERM.
  /** Milliseconds (0: no limit) of statement_timeout, enforced by the PostgreSQL server. */
  dbStatementTimeoutMs: number;
  /** Milliseconds a query may go unanswered before its connection is dropped (a frozen server enforces nothing). */
  dbQueryTimeoutMs: number;
  /** Milliseconds to open a connection. */
  dbConnectTimeoutMs: number;
  /** Milliseconds a request waits for a free pooled connection. */
  dbAcquireTimeoutMs: number;
  /** Connections per server process. */
  dbPoolSize: number;
  /**
   * session: a direct connection or a session-mode pooler (start-up options, named statements);
   * transaction: a transaction-mode pooler such as PgBouncer's pool_mode = transaction (neither).
   */
  dbPoolMode: PoolMode;
  /** Milliseconds commands keep retrying a database that does not answer at start before giving up. */
  dbStartupTimeoutMs: number;
  /** Milliseconds in-flight requests get to finish after SIGTERM (counted from the end of the drain delay). */
  shutdownGraceMs: number;
  /**
   * Milliseconds after SIGTERM during which the instance still accepts and serves (with Connection: close,
   * /api/status/ 503) before it closes its listener, so a health-checking load balancer stops routing first.
   */
  drainDelayMs: number;
  /**
   * Whether Patchbay keeps its own tables' statistics and dead rows in hand (docs/maintenance.md): ANALYZE
   * after large writes and, where no autovacuum runs, periodic VACUUM / ANALYZE (PATCHBAY_MAINTENANCE).
   */
  maintenance: boolean;
  /** Milliseconds between periodic maintenance passes where no autovacuum runs (embedded database, autovacuum off). */
  maintenanceIntervalMs: number;

  // Change log and events (docs/events.md).
  /** Days change log rows are kept (NetBox's CHANGELOG_RETENTION); 0 keeps them for ever. */
  changelogRetentionDays: number;
  /** Hours an Idempotency-Key and the answer it stored are kept (docs/scaling-out/idempotency.md); pruned with the change log. */
  idempotencyKeyRetentionHours: number;
  /** Whether each server process also dispatches the outbox (false: only `patchbay worker` does). */
  eventsDispatch: boolean;
  /** Attempts a delivery gets before it is marked failed. */
  eventsMaxAttempts: number;
  /** Milliseconds before the first retry; each further retry waits twice as long (capped at an hour). */
  eventsRetryBaseMs: number;
  /** Milliseconds between looks at the outbox when it was empty. */
  eventsPollMs: number;
  /** Milliseconds one webhook request may take in all: connecting, sending, the answer's headers and body. */
  webhookTimeoutMs: number;
  /** Deliveries one dispatcher has under way at once; it claims more as they finish. */
  eventsConcurrency: number;
  /** Of those, deliveries to one webhook (so a receiver that never answers holds no more slots than this). */
  eventsPerWebhook: number;
  /** Bytes of a receiver's answer read before the connection is closed (the answer is never stored). */
  webhookMaxResponse: number;
  /** The directory whose regular files a webhook's ca_file_path may name; null: no webhook may name one. */
  webhookCaDir: string | null;
  /** Bytes a CA file may have. */
  webhookCaMaxSize: number;
  /** Networks deliveries may connect to (CIDRs); empty: any the deny list does not name. */
  webhookAllowNetworks: string[];
  /** Networks deliveries may not connect to (CIDRs); the more specific of an allow and a deny decides. */
  webhookDenyNetworks: string[];
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw.toLowerCase() === 'none') return 0;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return n;
}

/** Seconds (decimals allowed; None means 0), as milliseconds. */
function seconds(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback * 1000;
  if (raw.toLowerCase() === 'none') return 0;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number of seconds, got "${raw}"`);
  return Math.round(n * 1000);
}

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  return ['1', 'true', 'yes', 'on'].includes(raw.toLowerCase());
}

function list(raw: string | undefined): string[] {
  return (raw ?? '').split(/[\s,]+/).filter(Boolean);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: int(env, 'PORT', 8000),
    host: env.HOST || '0.0.0.0',
    databaseUrl: env.DATABASE_URL || undefined,
    ...replicaSettings(env),
    dataDir: path.resolve(env.PATCHBAY_DATA_DIR || path.join(process.cwd(), 'data')),
    paginateCount: Math.max(1, int(env, 'PAGINATE_COUNT', 50)),
    maxPageSize: int(env, 'MAX_PAGE_SIZE', 1000),
    exemptViewPermissions: list(env.EXEMPT_VIEW_PERMISSIONS),
    loginRequired: bool(env, 'LOGIN_REQUIRED', false),
    maintenanceMode: bool(env, 'MAINTENANCE_MODE', false),
    allowTokenRetrieval: bool(env, 'ALLOW_TOKEN_RETRIEVAL', true),
    trustedProxies: list(env.TRUSTED_PROXIES),
    workers: int(env, 'PATCHBAY_WORKERS', 0),
    rejectUnknownFields: bool(env, 'PATCHBAY_REJECT_UNKNOWN_FIELDS', false),
    strictFiltering: bool(env, 'STRICT_FILTERING', false),
    oneStatementWrites: bool(env, 'PATCHBAY_ONE_STATEMENT_WRITES', true),
    enforceGlobalUnique: bool(env, 'ENFORCE_GLOBAL_UNIQUE', true),
    bulkMaxObjects: int(env, 'PATCHBAY_BULK_MAX_OBJECTS', 10_000),
    templateTimeoutMs: seconds(env, 'PATCHBAY_TEMPLATE_TIMEOUT', 5),
    templateMaxOutput: Math.max(1024, int(env, 'PATCHBAY_TEMPLATE_MAX_OUTPUT', 10_485_760)),
    templateMaxMemory: Math.max(16_777_216, int(env, 'PATCHBAY_TEMPLATE_MAX_MEMORY', 268_435_456)),
    // One sandbox per CPU for the whole server: the server processes share the CPUs between them.
    templateWorkers: Math.max(1, int(env, 'PATCHBAY_TEMPLATE_WORKERS', Math.floor(os.availableParallelism() / serverProcesses(env)))),
    templateQueueLimit: int(env, 'PATCHBAY_TEMPLATE_QUEUE', 100),
    exportMaxObjects: int(env, 'PATCHBAY_EXPORT_MAX_OBJECTS', 10_000),
    mediaRoot: path.resolve(env.PATCHBAY_MEDIA_ROOT || path.join(process.cwd(), 'media')),
    imageMaxSize: Math.max(1024, int(env, 'PATCHBAY_IMAGE_MAX_SIZE', 10_485_760)),
    dataUploadMaxMemorySize: Math.max(1024, int(env, 'DATA_UPLOAD_MAX_MEMORY_SIZE', 2_621_440)),
    allowedHosts: env.ALLOWED_HOSTS === undefined || env.ALLOWED_HOSTS === '' ? ['*'] : list(env.ALLOWED_HOSTS),
    schemaDir: path.resolve(env.PATCHBAY_SCHEMA_DIR || path.join(packageRoot(), 'schema')),
    migrationsDir: path.resolve(env.PATCHBAY_MIGRATIONS_DIR || path.join(packageRoot(), 'migrations')),
    ...operationsSettings(env),
    changelogRetentionDays: int(env, 'CHANGELOG_RETENTION', 90),
    idempotencyKeyRetentionHours: Math.max(1, int(env, 'IDEMPOTENCY_KEY_RETENTION', 24)),
    eventsDispatch: bool(env, 'PATCHBAY_EVENTS_DISPATCH', true),
    eventsMaxAttempts: Math.max(1, int(env, 'PATCHBAY_EVENTS_MAX_ATTEMPTS', 10)),
    eventsRetryBaseMs: seconds(env, 'PATCHBAY_EVENTS_RETRY_BASE', 5),
    eventsPollMs: Math.max(10, seconds(env, 'PATCHBAY_EVENTS_POLL', 1)),
    webhookTimeoutMs: Math.max(100, seconds(env, 'PATCHBAY_WEBHOOK_TIMEOUT', 10)),
    ...webhookSettings(env),
  };
}

/** The delivery bounds of the events block (docs/events.md, docs/operations.md). */
function webhookSettings(env: NodeJS.ProcessEnv) {
  const eventsConcurrency = Math.max(1, int(env, 'PATCHBAY_EVENTS_CONCURRENCY', 32));
  return {
    eventsConcurrency,
    eventsPerWebhook: Math.min(eventsConcurrency, Math.max(1, int(env, 'PATCHBAY_EVENTS_PER_WEBHOOK', 8))),
    webhookMaxResponse: int(env, 'PATCHBAY_WEBHOOK_MAX_RESPONSE', 65_536),
    webhookCaDir: env.PATCHBAY_WEBHOOK_CA_DIR ? path.resolve(env.PATCHBAY_WEBHOOK_CA_DIR) : null,
    webhookCaMaxSize: Math.max(1, int(env, 'PATCHBAY_WEBHOOK_CA_MAX_SIZE', 1_048_576)),
    webhookAllowNetworks: parseNetworks('PATCHBAY_WEBHOOK_ALLOW_NETWORKS', env.PATCHBAY_WEBHOOK_ALLOW_NETWORKS, []),
    webhookDenyNetworks: parseNetworks('PATCHBAY_WEBHOOK_DENY_NETWORKS', env.PATCHBAY_WEBHOOK_DENY_NETWORKS, DEFAULT_DENY_NETWORKS),
  };
}

/** Server processes `serve` runs: PATCHBAY_WORKERS (default one per CPU) on a PostgreSQL server, one on the embedded database. */
export function serverProcesses(env: NodeJS.ProcessEnv): number {
  return env.DATABASE_URL ? int(env, 'PATCHBAY_WORKERS', 0) || os.availableParallelism() : 1;
}

/**
 * DATABASE_REPLICA_URLS, REPLICA_MAX_LAG and REPLICA_WRITE_LEASE. The lease must outlast several lags: a
 * write waits up to REPLICA_MAX_LAG for standbys to show its lease, and an instance renews a cached lease
 * only past half its length, so a shorter lease could expire on a standby before it has replayed the write.
 */
export function replicaSettings(env: NodeJS.ProcessEnv) {
  const replicaMaxLagMs = seconds(env, 'REPLICA_MAX_LAG', 5);
  const replicaWriteLeaseMs = seconds(env, 'REPLICA_WRITE_LEASE', 60);
  if (replicaMaxLagMs <= 0) throw new Error(`REPLICA_MAX_LAG must be more than 0 seconds, got "${env.REPLICA_MAX_LAG}"`);
  if (replicaWriteLeaseMs < 4 * replicaMaxLagMs) {
    throw new Error(`REPLICA_WRITE_LEASE (${replicaWriteLeaseMs / 1000} s) must be at least 4 x REPLICA_MAX_LAG (${replicaMaxLagMs / 1000} s)`);
  }
  return { databaseReplicaUrls: list(env.DATABASE_REPLICA_URLS).filter((u) => u !== ''), replicaMaxLagMs, replicaWriteLeaseMs };
}

/** The operations block of the configuration (docs/operations.md lists each with its default). */
function operationsSettings(env: NodeJS.ProcessEnv) {
  const dbStatementTimeoutMs = seconds(env, 'PATCHBAY_DB_STATEMENT_TIMEOUT', 30);
  return {
    dbStatementTimeoutMs,
    // The server's own limit should fire first; the client's is the backstop for a server that cannot.
    dbQueryTimeoutMs: seconds(env, 'PATCHBAY_DB_QUERY_TIMEOUT', dbStatementTimeoutMs ? dbStatementTimeoutMs / 1000 + 5 : 0),
    dbConnectTimeoutMs: seconds(env, 'PATCHBAY_DB_CONNECT_TIMEOUT', 5),
    dbAcquireTimeoutMs: seconds(env, 'PATCHBAY_DB_ACQUIRE_TIMEOUT', 10),
    dbPoolSize: Math.max(1, int(env, 'PATCHBAY_DB_POOL_SIZE', 10)),
    dbPoolMode: parsePoolMode(env.DATABASE_POOL_MODE),
    dbStartupTimeoutMs: seconds(env, 'PATCHBAY_DB_STARTUP_TIMEOUT', 60),
    shutdownGraceMs: seconds(env, 'PATCHBAY_SHUTDOWN_GRACE', 25),
    // 0: the server cannot know the load balancer's check interval, and a delay no check is timed to only slows restarts.
    drainDelayMs: seconds(env, 'PATCHBAY_DRAIN_DELAY', 0),
    maintenance: bool(env, 'PATCHBAY_MAINTENANCE', true),
    maintenanceIntervalMs: Math.max(1000, seconds(env, 'PATCHBAY_MAINTENANCE_INTERVAL', 30)),
  };
}
