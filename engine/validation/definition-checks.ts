import type { Knex } from 'knex';
import type { ResolvedModel } from '../definitions/registry-types';
import type { Check } from '../definitions/generated/model-definition';
import { resolvePath, type FilterPath } from '../filters/filter-paths';
import { ident, join, sql, type Sql } from '../sql/fragment';
import { runRows } from '../query/statements/run';

type Db = Knex | Knex.Transaction;

/**
 * A path's value on the row "t", read through its relations (NULL when a hop on the way is unset).
 *
 * `locked` (what a verdict reads): each related row on the way is read FOR SHARE. A rule across rows
 * judged on a plain read would pass on a related row another transaction has already changed but not
 * yet committed (a rack moved to another site while a device is placed in it), and the write would
 * commit against a row that no longer exists as judged. FOR SHARE waits for such a change and reads
 * the row as it leaves it, and keeps the row from changing until this write commits. Message values
 * are read plainly: they do not decide anything.
 */
function valueAt(model: ResolvedModel, path: string, locked = false): Sql {
  const route: FilterPath = resolvePath(model, path);
  const f = route.field;
  if (route.multiValued || route.narrowed || !f.column) throw new Error(`${model.label}: check path ${path} must end on a stored field, one value per object`);
  return route.value(f.column, locked);
}

const PLACEHOLDER = /\{([a-z_][a-z0-9_.]*)\}/g;

/** The SQL of a check: true when the rule is broken. */
function brokenWhen(model: ResolvedModel, check: Check): Sql {
  if (check.same) {
    const [a, b] = check.same.map((p) => valueAt(model, p, true));
    return sql`(${a}) IS NOT NULL AND (${b}) IS NOT NULL AND (${a}) <> (${b})`;
  }
  if (check.between) {
    const v = valueAt(model, check.field!, true);
    const [lo, hi] = check.between.map((p) => valueAt(model, p, true));
    return sql`(${v}) < COALESCE((${lo}), (${v})) OR (${v}) > COALESCE((${hi}), (${v}))`;
  }
  if (check.any_of) return join(check.any_of.map((p) => sql`(${valueAt(model, p, true)}) IS NULL`), ' AND ');
  if (check.at_most_one) return sql`(${join(check.at_most_one.map((p) => sql`(CASE WHEN (${valueAt(model, p, true)}) IS NULL THEN 0 ELSE 1 END)`), ' + ')}) > 1`;
  const conditional = check.only_when ?? check.required_when;
  if (conditional && check.field) {
    const [path, values] = Object.entries(conditional)[0]!;
    // Compared as text, so one rule serves choices, numbers and booleans; a path that is unset holds none of the values.
    const holds = sql`COALESCE((${valueAt(model, path, true)})::text = ANY(${values.map(String)}::text[]), FALSE)`;
    const field = valueAt(model, check.field, true);
    return check.only_when ? sql`(${field}) IS NOT NULL AND NOT ${holds}` : sql`(${field}) IS NULL AND ${holds}`;
  }
  throw new Error(`${model.label}: a check needs same, between, any_of, at_most_one, only_when or required_when`);
}

interface CompiledChecks {
  /** Every check's verdict ("c0"...) and placeholder value ("v0"...), for the row "t". */
  columns: Sql;
  table: Sql;
  checks: Check[];
  placeholders: string[];
}

const compiled = new WeakMap<ResolvedModel, CompiledChecks | null>();

/** One statement per model: every check's verdict and every message placeholder's value. Built once, checked at startup. */
export function compileChecks(model: ResolvedModel): CompiledChecks | null {
  if (compiled.has(model)) return compiled.get(model)!;
  const checks = model.def.checks ?? [];
  let result: CompiledChecks | null = null;
  if (checks.length) {
    const placeholders = [...new Set(checks.flatMap((c) => [...c.message.matchAll(PLACEHOLDER)].map((m) => m[1]!)))];
    const columns = join([
      ...checks.map((c, i) => sql`COALESCE((${brokenWhen(model, c)}), FALSE) AS ${ident(`c${i}`)}`),
      ...placeholders.map((p, i) => sql`(${valueAt(model, p)})::text AS ${ident(`v${i}`)}`),
    ]);
    result = { columns, table: ident(model.table), checks, placeholders };
  }
  compiled.set(model, result);
  return result;
}

/**
 * The definition's checks on an object as written (inside the write's transaction, so related rows
 * written by the same request count): field -> messages; "non_field_errors" for rules without a field.
 */
export async function runChecks(db: Db, model: ResolvedModel, id: number): Promise<Record<string, string[]>> {
  const c = compileChecks(model);
  if (!c) return {};
  const [row] = await runRows<Record<string, unknown>>(db, sql`SELECT ${c.columns} FROM ${c.table} AS "t" WHERE "t"."id" = ${id}::bigint`);
  return row ? verdicts(c, row) : {};
}

/** runChecks for many objects in one statement: id -> field -> messages (objects without errors absent). */
export async function runChecksOnMany(db: Db, model: ResolvedModel, ids: readonly number[]): Promise<Map<number, Record<string, string[]>>> {
  const out = new Map<number, Record<string, string[]>>();
  const c = compileChecks(model);
  if (!c || !ids.length) return out;
  const rows = await runRows<Record<string, unknown>>(db, sql`SELECT "t"."id" AS "id", ${c.columns} FROM ${c.table} AS "t" WHERE "t"."id" = ANY(${[...ids]}::bigint[])`);
  for (const row of rows) {
    const errors = verdicts(c, row);
    if (Object.keys(errors).length) out.set(Number(row.id), errors);
  }
  return out;
}

function verdicts(c: CompiledChecks, row: Record<string, unknown>): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  c.checks.forEach((check, i) => {
    if (row[`c${i}`] !== true) return;
    const message = check.message.replace(PLACEHOLDER, (_m, p: string) => String(row[`v${c.placeholders.indexOf(p)}`] ?? ''));
    (errors[check.field ?? 'non_field_errors'] ??= []).push(message);
  });
  return errors;
}
