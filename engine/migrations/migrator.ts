import fs from 'node:fs';
import path from 'node:path';
import type { Db, DbTransaction } from '../database/db';
import { listMigrationFiles } from './migration-files';

/**
 * Applies migrations/ and records what ran in the bookkeeping tables knex's migrator kept before this one
 * (`knex_migrations`: name, batch, migration_time; `knex_migrations_lock`), with the same rows, so a
 * database migrated by an earlier Patchbay carries on. Migrations only go up: a down would have to be
 * written by hand, and generated files are never edited.
 */

/**
 * Applies what has not run yet and returns the file names applied. The whole pending batch runs in one
 * transaction (PostgreSQL DDL is transactional), so a failing file leaves none of the batch behind; the
 * transaction holds an advisory lock, so instances starting at once apply each migration exactly once
 * (the second waits for the first, then finds nothing pending).
 */
export async function migrate(db: Db, dir: string, schemaName?: string): Promise<string[]> {
  const files = listMigrationFiles(dir);
  return db.transaction(async (trx) => {
    const tables = await lockBookkeeping(trx, schemaName);
    const pending = pendingOf(files, await appliedNames(trx, tables), dir);
    if (!pending.length) return [];
    // The lock row, as knex's migrator set it while it worked: an older Patchbay starting meanwhile
    // sees the table locked instead of migrating beside this one.
    await trx.raw(`UPDATE ${tables.lock} SET "is_locked" = 1`);
    const [{ batch }] = (await trx.raw<{ batch: number }>(`SELECT coalesce(max("batch"), 0) + 1 AS "batch" FROM ${tables.applied}`)).rows as [{ batch: number }];
    for (const name of pending) {
      const file = path.join(dir, name);
      const sql = await fs.promises.readFile(file, 'utf8');
      for (const statement of splitStatements(sql)) await trx.run({ text: statement, values: [] });
      await trx.raw(`INSERT INTO ${tables.applied} ("name", "batch", "migration_time") VALUES (?, ?, now())`, [name, batch]);
    }
    await trx.raw(`UPDATE ${tables.lock} SET "is_locked" = 0`);
    return pending;
  });
}

/** File names in dir that this database has not applied yet. */
export async function pendingMigrations(db: Db, dir: string, schemaName?: string): Promise<string[]> {
  const files = listMigrationFiles(dir);
  return db.transaction(async (trx) => pendingOf(files, await appliedNames(trx, await lockBookkeeping(trx, schemaName)), dir));
}

/** The bookkeeping tables, quoted and qualified by the schema when one is named. */
interface Bookkeeping {
  applied: string;
  lock: string;
}

/**
 * Takes the transaction-scoped advisory lock every migrating instance takes, then creates the
 * bookkeeping tables (as knex created them) and the lock row when missing: created under the lock, two
 * instances on an empty database cannot both create them.
 */
async function lockBookkeeping(trx: DbTransaction, schemaName: string | undefined): Promise<Bookkeeping> {
  await trx.raw(`SELECT pg_advisory_xact_lock(hashtext('patchbay migrate ' || coalesce(?::text, current_schema())))`, [schemaName ?? null]);
  const prefix = schemaName ? `"${schemaName.replace(/"/g, '')}".` : '';
  const tables = { applied: `${prefix}"knex_migrations"`, lock: `${prefix}"knex_migrations_lock"` };
  await trx.raw(`CREATE TABLE IF NOT EXISTS ${tables.applied} ("id" serial PRIMARY KEY, "name" varchar(255), "batch" integer, "migration_time" timestamptz)`);
  await trx.raw(`CREATE TABLE IF NOT EXISTS ${tables.lock} ("index" serial PRIMARY KEY, "is_locked" integer)`);
  await trx.raw(`INSERT INTO ${tables.lock} ("is_locked") SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM ${tables.lock})`);
  return tables;
}

async function appliedNames(trx: DbTransaction, tables: Bookkeeping): Promise<string[]> {
  const { rows } = await trx.raw<{ name: string }>(`SELECT "name" FROM ${tables.applied} ORDER BY "id"`);
  return rows.map((r) => r.name);
}

/**
 * The files not applied yet, in order. An applied migration whose file is gone means the directory is
 * not this database's (or was damaged): refused, as knex's migrator refused it, rather than guessed at.
 */
function pendingOf(files: string[], applied: string[], dir: string): string[] {
  const known = new Set(files);
  const missing = applied.filter((name) => !known.has(name));
  if (missing.length) throw new Error(`The migration directory ${dir} is corrupt, the following files are missing: ${missing.join(', ')}`);
  const done = new Set(applied);
  return files.filter((name) => !done.has(name));
}

/**
 * The statements of a SQL file, without the trailing `;`. node-postgres runs a multi-statement string
 * (simple query protocol) but not as a statement with parameters, and PGlite's query() never does
 * ("cannot insert multiple commands into a prepared statement"), so the migrator sends one statement
 * at a time to both. Splits on `;` outside
 * quotes, quoted identifiers, dollar quotes and comments; comments before a statement, and pieces
 * holding nothing else, are dropped.
 */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let hasCode = false;
  let i = 0;
  const skipTo = (end: number): void => {
    i = end < 0 ? sql.length : end;
  };
  while (i < sql.length) {
    const ch = sql[i]!;
    const rest = sql.slice(i, i + 2);
    if (rest === '--') {
      skipTo(sql.indexOf('\n', i));
      continue;
    }
    if (rest === '/*') {
      skipTo(endOfBlockComment(sql, i));
      continue;
    }
    if (ch === ';') {
      if (hasCode) statements.push(sql.slice(start, i).trim());
      start = i + 1;
      hasCode = false;
      i++;
      continue;
    }
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (!hasCode) start = i; // leading comments stay out of the statement
    hasCode = true;
    if (ch === "'" || ch === '"') {
      const escapes = ch === "'" && /[eE]/.test(sql[i - 1] ?? '') && !/\w/.test(sql[i - 2] ?? '');
      skipTo(endOfQuoted(sql, i, ch, escapes));
      continue;
    }
    const tag = ch === '$' ? /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i)) : null;
    if (tag && !/[\w$]/.test(sql[i - 1] ?? '')) {
      const close = sql.indexOf(tag[0], i + tag[0].length);
      skipTo(close < 0 ? -1 : close + tag[0].length);
      continue;
    }
    i++;
  }
  if (hasCode) statements.push(sql.slice(start).trim());
  return statements;
}

/** Index just past the closing quote; a doubled quote is part of the text, as is \' in E'' strings. */
function endOfQuoted(sql: string, open: number, quote: string, backslashEscapes: boolean): number {
  let i = open + 1;
  while (i < sql.length) {
    const ch = sql[i];
    if (backslashEscapes && ch === '\\') i += 2;
    else if (ch === quote && sql[i + 1] === quote) i += 2;
    else if (ch === quote) return i + 1;
    else i++;
  }
  return -1;
}

/** Block comments nest in PostgreSQL. */
function endOfBlockComment(sql: string, open: number): number {
  let depth = 0;
  let i = open;
  while (i < sql.length) {
    const two = sql.slice(i, i + 2);
    if (two === '/*') {
      depth++;
      i += 2;
    } else if (two === '*/') {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else i++;
  }
  return -1;
}
