import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { listMigrationFiles } from './migration-files';

/**
 * Applies migrations/ through knex's migrator, which records what ran (knex_migrations) and holds a lock
 * row (knex_migrations_lock) so several instances starting at once apply each migration exactly once.
 * Migrations only go up: a down would have to be written by hand, and generated files are never edited.
 */

/**
 * Applies what has not run yet and returns the file names applied. knex runs the whole pending batch in
 * one transaction (PostgreSQL DDL is transactional), so a failing file leaves none of the batch behind.
 */
export async function migrate(knex: Knex, dir: string, schemaName?: string): Promise<string[]> {
  const config = migratorConfig(dir, schemaName);
  await ensureBookkeeping(knex, config);
  const [, applied] = (await knex.migrate.latest(config)) as [number, string[]];
  return applied;
}

/** File names in dir that this database has not applied yet. */
export async function pendingMigrations(knex: Knex, dir: string, schemaName?: string): Promise<string[]> {
  const config = migratorConfig(dir, schemaName);
  await ensureBookkeeping(knex, config);
  const [, pending] = (await knex.migrate.list(config)) as [unknown[], string[]];
  return pending;
}

function migratorConfig(dir: string, schemaName: string | undefined): Knex.MigratorConfig {
  return { migrationSource: new SqlDirectorySource(dir), ...(schemaName ? { schemaName } : {}) };
}

/**
 * knex creates its two bookkeeping tables and the lock row on first use without any lock, so two
 * instances starting on an empty database race: both create the table (one fails) or both insert a
 * lock row (then neither can lock); four instances on a fresh schema failed 19 runs of 20. Creating
 * them under a transaction-scoped advisory lock first removes the race; after that knex's own lock row
 * serialises the migrations themselves.
 */
async function ensureBookkeeping(knex: Knex, config: Knex.MigratorConfig): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx.raw(`SELECT pg_advisory_xact_lock(hashtext('patchbay migrate ' || coalesce(?::text, current_schema())))`, [
      config.schemaName ?? null,
    ]);
    // currentVersion is the lightest migrator call that creates the tables; its answer is not needed.
    await trx.migrate.currentVersion(config);
  });
}

/** Each .sql file of the directory is one migration, named by its file name. */
class SqlDirectorySource implements Knex.MigrationSource<string> {
  constructor(private readonly dir: string) {}

  async getMigrations(): Promise<string[]> {
    return listMigrationFiles(this.dir);
  }

  getMigrationName(migration: string): string {
    return migration;
  }

  async getMigration(migration: string): Promise<Knex.Migration> {
    const file = path.join(this.dir, migration);
    return {
      up: async (trx: Knex) => {
        const sql = await fs.promises.readFile(file, 'utf8');
        for (const statement of splitStatements(sql)) await trx.raw(escapeBindings(statement, file));
      },
      down: async () => {
        throw new Error(`${migration}: migrations only go forward; make a new migration instead`);
      },
    };
  }
}

/**
 * knex.raw treats every `?` as a bind parameter even when no bindings are given, and `\?` as a plain `?`.
 * Escaping keeps SQL text such as jsonb's `?` operator intact. A backslash right before a `?` cannot be
 * expressed through knex at all, so it is refused rather than silently changed.
 */
function escapeBindings(statement: string, file: string): string {
  if (statement.includes('\\?')) throw new Error(`${file}: a backslash before "?" cannot be passed through knex.raw`);
  return statement.replace(/\?/g, '\\?');
}

/**
 * The statements of a SQL file, without the trailing `;`. node-postgres runs a multi-statement string
 * (simple query protocol) but PGlite's query() does not ("cannot insert multiple commands into a
 * prepared statement"), so the migrator sends one statement at a time to both. Splits on `;` outside
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
