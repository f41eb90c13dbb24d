import { connectDatabase, type DatabaseOptions } from '../../engine/database/connect';
import { quoteIdent } from '../../engine/migrations/identifiers';
import { elapsedMs, summarize, type LatencySummary } from './stats';
import type { Db } from '../../engine/database/db';

/**
 * The ceiling the API should approach: the rows a scenario returns, fetched by one hand-written SQL query per
 * request (foreign keys joined, tags aggregated, count(*) for lists as the API's `count`) through the same
 * database layer (pg.Pool, or PGlite) the server uses, and JSON.stringify'd, timed like the HTTP points.
 */
export interface RawQuery {
  table: string;
  /** 'full': every column, each foreign key's target joined (id and its name-like columns) and tags; or SQL expressions over alias t. */
  select: 'full' | string[];
  where?: { sql: string; bindings: Array<string | number> };
  orderBy: string[];
  limit: number;
  /** Lists run count(*) over the same WHERE, as the API's `count` does. */
  count: boolean;
}

export interface RawPoint {
  connections: number;
  reqPerSec: number;
  rowsPerSec: number;
  latency: LatencySummary;
  bytes: number;
  error?: string;
}

/** Columns of a joined row shown in the nested representation, when the table has them. */
const NESTED_COLUMNS = ['name', 'slug', 'rd', 'prefix', 'address', 'vid', 'model'];

interface Catalog {
  columns: Map<string, Set<string>>;
  /** table -> [column, referenced table] */
  foreignKeys: Map<string, Array<[string, string]>>;
}

async function readCatalog(knex: Db): Promise<Catalog> {
  const cols = await knex.raw<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()`,
  );
  const fks = await knex.raw<{ table_name: string; column_name: string; target: string }>(
    `SELECT t.relname AS table_name, a.attname AS column_name, r.relname AS target
       FROM pg_constraint c
       JOIN pg_class t ON t.oid = c.conrelid
       JOIN pg_class r ON r.oid = c.confrelid
       JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
      WHERE c.contype = 'f' AND t.relnamespace = current_schema()::regnamespace`,
  );
  const columns = new Map<string, Set<string>>();
  for (const r of cols.rows) {
    if (!columns.has(r.table_name)) columns.set(r.table_name, new Set());
    columns.get(r.table_name)!.add(r.column_name);
  }
  const foreignKeys = new Map<string, Array<[string, string]>>();
  for (const r of fks.rows) {
    if (!foreignKeys.has(r.table_name)) foreignKeys.set(r.table_name, []);
    foreignKeys.get(r.table_name)!.push([r.column_name, r.target]);
  }
  return { columns, foreignKeys };
}

/** The SQL of one raw query, built from the catalog (so it follows the tables as they are). */
export function buildSql(q: RawQuery, catalog: Catalog): { rows: string; count: string | null } {
  const t = quoteIdent(q.table);
  const select: string[] = [];
  const joins: string[] = [];
  if (q.select === 'full') {
    select.push('t.*');
    const fks = (catalog.foreignKeys.get(q.table) ?? []).sort((a, b) => a[0].localeCompare(b[0]));
    fks.forEach(([column, target], i) => {
      const alias = `j${i}`;
      const base = column.replace(/_id$/, '');
      joins.push(`LEFT JOIN ${quoteIdent(target)} AS ${alias} ON ${alias}."id" = t.${quoteIdent(column)}`);
      select.push(`${alias}."id" AS ${quoteIdent(`${base}__id`)}`);
      for (const c of NESTED_COLUMNS) {
        if (catalog.columns.get(target)?.has(c)) select.push(`${alias}.${quoteIdent(c)} AS ${quoteIdent(`${base}__${c}`)}`);
      }
    });
    const tagTable = `${q.table}_tags`;
    if (catalog.columns.has(tagTable) && catalog.columns.has('extras_tag')) {
      // One grouped query for the page's tags rather than a subquery per row.
      joins.push(`LEFT JOIN (SELECT x."source_id", array_agg(g."name" ORDER BY g."name") AS "names" FROM ${quoteIdent(tagTable)} x
        JOIN "extras_tag" g ON g."id" = x."target_id" WHERE x."source_id" IN (SELECT "id" FROM t) GROUP BY x."source_id") AS tg
        ON tg."source_id" = t."id"`);
      select.push(`COALESCE(tg."names", '{}') AS "tags"`);
    }
  } else {
    select.push(...q.select);
  }
  const where = q.where ? ` WHERE ${q.where.sql}` : '';
  const order = ` ORDER BY ${q.orderBy.join(', ')}`;
  // The page first, then its joins: the plan a list should have whatever the planner's statistics say.
  const page = `WITH t AS (SELECT * FROM ${t} AS t${where}${order} LIMIT ${q.limit})`;
  const rows = `${page} SELECT ${select.join(', ')} FROM t ${joins.join(' ')}${order}`;
  const count = q.count ? `SELECT count(*)::int AS n FROM ${t} AS t${where}` : null;
  return { rows, count };
}

/** One raw request: count (lists) and rows, then the JSON text the API would send. */
async function once(knex: Db, sql: { rows: string; count: string | null }, bindings: Array<string | number>): Promise<{ rows: number; bytes: number }> {
  let count = 0;
  if (sql.count) {
    const c = await knex.raw<{ n: number }>(sql.count, bindings);
    count = c.rows[0]?.n ?? 0;
  }
  const r = await knex.raw<Record<string, unknown>>(sql.rows, bindings);
  const text = JSON.stringify(sql.count ? { count, next: null, previous: null, results: r.rows } : r.rows[0] ?? null);
  return { rows: r.rows.length, bytes: Buffer.byteLength(text) };
}

async function timeLoop(knex: Db, sql: { rows: string; count: string | null }, bindings: Array<string | number>, connections: number, seconds: number): Promise<RawPoint> {
  const latencies: number[] = [];
  let rows = 0;
  let bytes = 0;
  const start = performance.now();
  const deadline = start + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      const out = await once(knex, sql, bindings);
      latencies.push(elapsedMs(t0));
      rows += out.rows;
      bytes = out.bytes;
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const secs = elapsedMs(start) / 1000;
  return { connections, reqPerSec: latencies.length / secs, rowsPerSec: rows / secs, latency: summarize(latencies), bytes };
}

export interface RawTask {
  scenario: string;
  query: RawQuery;
}

/** Runs every task at each connection count; an SQL error marks that task's points (the bench's SQL, not the server's fault). */
export async function runRawSql(
  connection: DatabaseOptions,
  tasks: RawTask[],
  connections: number[],
  seconds: number,
  log: (line: string) => void,
): Promise<Map<string, RawPoint[]>> {
  const out = new Map<string, RawPoint[]>();
  if (!tasks.length) return out;
  const db = await connectDatabase({ ...connection, poolMax: Math.max(...connections) });
  try {
    const catalog = await readCatalog(db.knex);
    // Embedded PostgreSQL is WebAssembly: V8 takes seconds to compile its hot paths, so it is exercised first.
    if (db.embedded) await timeLoop(db.knex, { rows: 'SELECT count(*) FROM information_schema.columns', count: null }, [], 1, 4);
    for (const task of tasks) {
      const sql = buildSql(task.query, catalog);
      const bindings = task.query.where?.bindings ?? [];
      const points: RawPoint[] = [];
      try {
        await once(db.knex, sql, bindings); // the SQL is checked before timing
        await timeLoop(db.knex, sql, bindings, 1, Math.min(0.5, seconds)); // warm-up, not recorded
        for (const c of connections) points.push(await timeLoop(db.knex, sql, bindings, c, seconds));
        log(`  raw ${task.scenario}: ${points.map((p) => `${p.connections} conn ${p.reqPerSec.toFixed(1)} req/s`).join(', ')}`);
      } catch (e) {
        const error = (e as Error).message.split('\n')[0]!;
        log(`  raw ${task.scenario}: SQL error ${error}`);
        for (const c of connections) {
          points.push({ connections: c, reqPerSec: Number.NaN, rowsPerSec: Number.NaN, latency: summarize([]), bytes: 0, error });
        }
      }
      out.set(task.scenario, points);
    }
  } finally {
    await db.close();
  }
  return out;
}
