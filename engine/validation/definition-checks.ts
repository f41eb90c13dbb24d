import type { ResolvedModel } from '../definitions/registry-types';
import type { Check, ModelDefinition } from '../definitions/generated/model-definition';
import { resolvePath, type FilterPath } from '../filters/filter-paths';
import { and, column, ident, join, sql, type Sql } from '../sql/fragment';
import { displaySql } from '../reads/object-json';
import { runRows } from '../database/run';
import type { FaultCollector } from '../definitions/fault-collector';
import type { Db } from '../database/db';
import type { Config } from '../config';


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
  const v = route.value(f.column, locked);
  // A blank text or choice is unset, as for NetBox's clean() (`if not self.mode`): a rule on a blank IKE mode.
  const textual = !f.array && (BLANKABLE.has(f.kind) || (f.kind === 'choice' && f.choices?.numeric === false));
  return textual ? sql`NULLIF(${v}, '')` : v;
}

const BLANKABLE = new Set(['string', 'text', 'slug']);

/**
 * Whether a path is set on the row "t": a stored value, or for a reverse_generic field of the model, a row of
 * another model pointing here (an interface's cable termination). Such a row cannot be locked before it
 * exists; a cable attached concurrently is not judged here, as NetBox judges it only on the component's own save.
 */
function isSet(model: ResolvedModel, path: string): Sql {
  const f = model.fields.get(path);
  if (f?.kind === 'reverse_generic') {
    const { model: holder, via, where } = f.reverse;
    const fixed = Object.entries(where).map(([col, v]) => sql`${column('x', col)} = ${v}`);
    return sql`EXISTS (SELECT 1 FROM ${ident(holder.table)} AS "x" WHERE ${and([sql`${column('x', via.typeColumn)} = ${model.label}::text`, sql`${column('x', via.idColumn)} = "t"."id"`, ...fixed])})`;
  }
  return sql`(${valueAt(model, path, true)}) IS NOT NULL`;
}

/** What a check compares of a value: the value, or its IP family or mask length (an IP range's two ends). */
function compared(value: Sql, compare: Check['compare']): Sql {
  if (compare === 'family') return sql`family((${value})::inet)`;
  if (compare === 'masklen') return sql`masklen((${value})::inet)`;
  if (compare === 'address') return sql`host((${value})::inet)::inet`;
  return value;
}

const PLACEHOLDER = /\{([a-z_][a-z0-9_.]*)\}/g;

/** The stored column of a cap's `per` field. */
function perColumn(model: ResolvedModel, check: Check): string {
  const f = model.fields.get(check.per ?? '');
  if (!f?.column || f.array) throw new Error(`${model.label}: at_most per ${check.per ?? ''} must name a single stored field`);
  return f.column;
}

/** The other rows sharing the row "t"'s value of a cap's `per` field (none while it is unset). */
function othersCounted(model: ResolvedModel, check: Check): Sql {
  const per = perColumn(model, check);
  return sql`(SELECT count(*) FROM ${ident(model.table)} AS "x" WHERE ${column('x', per)} = ${column('t', per)} AND ${column('x', 'id')} <> ${column('t', 'id')})`;
}

/** A `{path: [values]}` condition: the path holds one of the values, compared as text (unset holds none). */
function holds(model: ResolvedModel, condition: Record<string, Array<string | number | boolean>>): Sql {
  const [path, values] = Object.entries(condition)[0]!;
  return sql`COALESCE((${valueAt(model, path, true)})::text = ANY(${values.map(String)}::text[]), FALSE)`;
}

/** The SQL of a check: true when the rule is broken. */
function brokenWhen(model: ResolvedModel, check: Check): Sql {
  if (check.at_most !== undefined) {
    const capped = sql`${othersCounted(model, check)} >= ${check.at_most}::bigint`;
    return check.when ? sql`${holds(model, check.when)} AND ${capped}` : capped;
  }
  if (check.same) {
    const [a, b] = check.same.map((p) => compared(valueAt(model, p, true), check.compare));
    return sql`(${a}) IS NOT NULL AND (${b}) IS NOT NULL AND (${a}) <> (${b})`;
  }
  if (check.ordered) {
    const [a, b] = check.ordered.map((p) => compared(valueAt(model, p, true), check.compare));
    return check.strict ? sql`(${a}) >= (${b})` : sql`(${a}) > (${b})`;
  }
  if (check.between) {
    const v = valueAt(model, check.field!, true);
    const [lo, hi] = check.between.map((p) => valueAt(model, p, true));
    return sql`(${v}) < COALESCE((${lo}), (${v})) OR (${v}) > COALESCE((${hi}), (${v}))`;
  }
  if (check.any_of) return join(check.any_of.map((p) => sql`(${valueAt(model, p, true)}) IS NULL`), ' AND ');
  if (check.at_most_one) return sql`(${join(check.at_most_one.map((p) => sql`(CASE WHEN (${valueAt(model, p, true)}) IS NULL THEN 0 ELSE 1 END)`), ' + ')}) > 1`;
  if (check.excludes && check.field) {
    const present = check.excludes.map((p) => isSet(model, p));
    return sql`COALESCE((${valueAt(model, check.field, true)}), FALSE) AND (${join(present, ' OR ')})`;
  }
  const conditional = check.only_when ?? check.required_when;
  if (conditional && check.field) {
    // Compared as text, so one rule serves choices, numbers and booleans; a path that is unset holds none of the values.
    const held = holds(model, conditional);
    const field = valueAt(model, check.field, true);
    return check.only_when ? sql`(${field}) IS NOT NULL AND NOT ${held}` : sql`(${field}) IS NULL AND ${held}`;
  }
  throw new Error(`${model.label}: a check needs at_most, same, between, ordered, any_of, at_most_one, only_when or required_when`);
}

export interface CompiledChecks {
  /** Every check's verdict ("c0"...), every overlap's other row's display ("d0", and "u0": true where its enforcing path is unset) and placeholder value ("v0"...), for the row "t". */
  columns: Sql;
  table: Sql;
  checks: Check[];
  overlaps: NoOverlap[];
  placeholders: string[];
  /** For each placeholder naming a choice's label ({type.label}): value -> label. */
  labels: Array<ReadonlyMap<unknown, string> | undefined>;
  /** The advisory locks the overlap rules need, taken in a statement of their own before the verdicts are read. */
  lock: ((ids: Sql) => Sql) | null;
  /**
   * The same locks over rows a statement is writing (`rows`: a FROM item aliased "t", such as an INSERT's
   * RETURNING *): taken inside that statement, so one round trip fewer; the verdicts must still be read by a
   * later statement, whose snapshot is taken after the locks.
   */
  lockRows: ((rows: Sql) => Sql) | null;
}

type NoOverlap = NonNullable<ModelDefinition['no_overlap']>[number];

/**
 * The settings a definition may name (`enforced_when_unset`), by NetBox's names. They vary with the
 * configuration, not the definition, so a model's statement is built once for each set of values.
 */
export interface RuleSettings {
  ENFORCE_GLOBAL_UNIQUE: boolean;
}

export const DEFAULT_RULE_SETTINGS: RuleSettings = { ENFORCE_GLOBAL_UNIQUE: true };

export function ruleSettings(config: Pick<Config, 'enforceGlobalUnique'>): RuleSettings {
  return { ENFORCE_GLOBAL_UNIQUE: config.enforceGlobalUnique };
}

const compiled = new WeakMap<ResolvedModel, Map<string, CompiledChecks | null>>();

/**
 * A span's end point compared as an address (whatever its mask) for inet and cidr fields unless the rule
 * compares values, else as stored. The address is spelt set_masklen to /32 or /128 (the same value as
 * host()::inet), the expression an address column's host index is built on (engine/domain/allocation):
 * with host()::inet no index matched, and every new row of a bulk write scanned the whole table, so
 * seeding addresses slowed with each batch (1,000 addresses: 6, 17, then 29 s).
 */
function spanValue(model: ResolvedModel, alias: string, name: string, compare: NoOverlap['compare'] = 'address'): Sql {
  const f = model.fields.get(name);
  if (!f?.column) throw new Error(`${model.label}: no_overlap names ${name}, not a stored field`);
  if (compare === 'value' && f.kind !== 'inet' && f.kind !== 'cidr') throw new Error(`${model.label}: no_overlap compare "value" is for inet and cidr fields; ${name} is compared as stored already`);
  if (compare !== 'address' || (f.kind !== 'inet' && f.kind !== 'cidr')) return column(alias, f.column);
  const value = column(alias, f.column);
  const address = f.kind === 'inet' ? value : sql`${value}::inet`;
  return sql`set_masklen(${address}, CASE WHEN family(${value}) = 4 THEN 32 ELSE 128 END)`;
}

/** The stored column of an `exempt` field and its values as text. */
function exemptColumn(model: ResolvedModel, rule: NoOverlap): { column: string; values: string[] } | null {
  if (!rule.exempt) return null;
  const [name, values] = Object.entries(rule.exempt)[0]!;
  const f = model.fields.get(name);
  if (!f?.column || f.array) throw new Error(`${model.label}: no_overlap exempt names ${name}, not a single stored field of the model`);
  const known = f.kind === 'choice' ? f.choices : undefined;
  const texts = known ? new Set([...known.labels.keys()].map(String)) : null;
  for (const v of values) if (texts && !texts.has(String(v))) throw new Error(`${model.label}: no_overlap exempt value ${JSON.stringify(v)} is not a choice of ${name}`);
  return { column: f.column, values: values.map(String) };
}

/** Whether the rule holds for the row "t": its `enforced_by` path where set, else the named setting (true without `enforced_by`). */
function enforced(model: ResolvedModel, rule: NoOverlap, settings: RuleSettings): Sql {
  if (!rule.enforced_by) {
    if (rule.enforced_when_unset || rule.message_when_unset) throw new Error(`${model.label}: no_overlap enforced_when_unset and message_when_unset need enforced_by`);
    return sql`TRUE`;
  }
  const route = resolvePath(model, rule.enforced_by);
  if (route.field.kind !== 'boolean') throw new Error(`${model.label}: no_overlap enforced_by ${rule.enforced_by} must end on a boolean field`);
  const fallback = rule.enforced_when_unset ? settings[rule.enforced_when_unset] : false;
  return sql`COALESCE((${valueAt(model, rule.enforced_by, true)}), ${fallback}::boolean)`;
}

function withinColumns(model: ResolvedModel, rule: NoOverlap): string[] {
  return (rule.within ?? []).map((name) => {
    const f = model.fields.get(name);
    if (!f?.column) throw new Error(`${model.label}: no_overlap within names ${name}, not a stored field`);
    return f.column;
  });
}

/**
 * Another row of the same scope whose span meets this one's. Read after the scope's advisory lock was
 * taken (by a statement of its own, so this statement's snapshot sees every writer that held it before).
 */
function overlapping(model: ResolvedModel, rule: NoOverlap, what: Sql, settings: RuleSettings): Sql {
  // Rows of one request are judged as NetBox saves them, one after the other: a row meets the rows
  // written before it and those stored, not the ones the request writes after it ("req"."ids", in
  // request order; empty for a report, where every row meets every other).
  const earlier = (alias: string) => sql`COALESCE(array_position("req"."ids", ${column(alias, 'id')}), 0) < COALESCE(array_position("req"."ids", ${column('t', 'id')}), 1)`;
  const others = (alias: string) => {
    const same = withinColumns(model, rule).map((c) => sql`${column(alias, c)} IS NOT DISTINCT FROM ${column('t', c)}`);
    const meets = [sql`${spanValue(model, alias, rule.start, rule.compare)} <= ${spanValue(model, 't', rule.end, rule.compare)}`, sql`${spanValue(model, alias, rule.end, rule.compare)} >= ${spanValue(model, 't', rule.start, rule.compare)}`];
    return and([sql`${column(alias, 'id')} <> ${column('t', 'id')}`, ...same, ...meets, earlier(alias)]);
  };
  const exempt = exemptColumn(model, rule);
  // As NetBox's IPAddress.clean(): a row holding an exempt value is refused still when any row it meets
  // does not hold one; the row told is then the first it meets, exempt or not.
  const conflict = exempt
    ? sql`(NOT COALESCE(${column('t', exempt.column)}::text = ANY(${exempt.values}::text[]), FALSE) OR EXISTS (SELECT 1 FROM ${ident(model.table)} AS "e" WHERE ${others('e')} AND NOT COALESCE(${column('e', exempt.column)}::text = ANY(${exempt.values}::text[]), FALSE)))`
    : sql`TRUE`;
  // First in the model's own terms (NetBox's `.first()` over start, then id).
  return sql`(SELECT ${what} FROM ${ident(model.table)} AS "o" WHERE ${others('o')} AND ${enforced(model, rule, settings)} AND ${conflict} ORDER BY ${column('o', model.fields.get(rule.start)!.column!)}, ${column('o', 'id')} LIMIT 1)`;
}

/** True where the rule's `enforced_by` path is unset on the row "t" (the message_when_unset case). */
function enforcingUnset(model: ResolvedModel, rule: NoOverlap): Sql {
  return rule.enforced_by ? sql`(${valueAt(model, rule.enforced_by)}) IS NULL` : sql`FALSE`;
}

/**
 * One transaction-scoped advisory lock per (model, scope) the written rows fall in, in a fixed order so
 * two bulk writes cannot deadlock: writers of one scope (IP ranges of one VRF, terminations of one L2VPN)
 * wait for each other through any number of server instances, and the one that waited sees what the
 * other committed. Scopes: each no_overlap rule's `within` values, each at_most check's `per` value.
 */
function scopeLock(model: ResolvedModel, rules: NoOverlap[], caps: Array<{ check: Check; index: number }>): { byIds: (ids: Sql) => Sql; ofRows: (rows: Sql) => Sql } {
  const keys = rules.map((rule, i) => {
    // A rule whose span is one value (a duplicate rule: start and end are one field) locks that value in
    // its scope, not the whole scope: writers of other addresses of a VRF need not wait.
    const point = rule.start === rule.end ? [sql`(${spanValue(model, 't', rule.start, rule.compare)})::text`] : [];
    const parts = [...withinColumns(model, rule).map((c) => sql`${column('t', c)}::text`), ...point];
    const scope = parts.length ? sql`concat_ws('|', ${join(parts)})` : sql`''`;
    return sql`SELECT hashtext(${`${model.label}#no_overlap${i}`}::text) AS "a", hashtext(${scope}) AS "b"`;
  });
  for (const { check, index } of caps) {
    keys.push(sql`SELECT hashtext(${`${model.label}#at_most${index}`}::text) AS "a", hashtext(coalesce(${column('t', perColumn(model, check))}::text, '')) AS "b"`);
  }
  const locks = (rows: Sql, where: Sql) =>
    sql`SELECT count(pg_advisory_xact_lock("k"."a", "k"."b")) AS "locks" FROM (SELECT DISTINCT "s"."a", "s"."b" FROM ${rows} CROSS JOIN LATERAL (${join(keys, ' UNION ALL ')}) AS "s" WHERE ${where} ORDER BY 1, 2) AS "k"`;
  return {
    byIds: (ids) => locks(sql`${ident(model.table)} AS "t"`, sql`"t"."id" = ANY(${ids})`),
    ofRows: (rows) => locks(rows, sql`TRUE`),
  };
}

/**
 * Builds each check and no_overlap rule of a model on its own, so each fault is kept at its rule's
 * pointer; a rule already found at fault when the definitions were resolved is not built again.
 */
export function checkDefinitionChecks(model: ResolvedModel, faults: FaultCollector): void {
  (model.def.checks ?? []).forEach((c, i) => {
    if (!faults.has(model.file, `/checks/${i}`)) faults.attempt(model.file, `/checks/${i}`, () => brokenWhen(model, c));
  });
  (model.def.no_overlap ?? []).forEach((o, i) => {
    if (!faults.has(model.file, `/no_overlap/${i}`)) faults.attempt(model.file, `/no_overlap/${i}`, () => overlapping(model, o, sql`1`, DEFAULT_RULE_SETTINGS));
  });
}

/** One statement per model (and set of rule settings): every check's verdict and every message placeholder's value. Built once, checked at startup. */
export function compileChecks(model: ResolvedModel, settings: RuleSettings = DEFAULT_RULE_SETTINGS): CompiledChecks | null {
  const key = JSON.stringify(settings);
  let variants = compiled.get(model);
  if (!variants) compiled.set(model, (variants = new Map()));
  if (variants.has(key)) return variants.get(key)!;
  const checks = model.def.checks ?? [];
  const overlaps = model.def.no_overlap ?? [];
  let result: CompiledChecks | null = null;
  if (checks.length || overlaps.length) {
    const messages = [...checks.map((c) => c.message), ...overlaps.flatMap((o) => [o.message, o.message_when_unset ?? ''])];
    const placeholders = [...new Set(messages.flatMap((m) => [...m.matchAll(PLACEHOLDER)].map((x) => x[1]!)))].filter((p) => p !== 'other' && p !== 'count');
    const caps = checks.flatMap((check, index) => (check.at_most !== undefined ? [{ check, index }] : []));
    const columns = join([
      ...checks.map((c, i) => sql`COALESCE((${brokenWhen(model, c)}), FALSE) AS ${ident(`c${i}`)}`),
      ...overlaps.map((o, i) => sql`${overlapping(model, o, displaySql(model, 'o'), settings)} AS ${ident(`d${i}`)}, ${enforcingUnset(model, o)} AS ${ident(`u${i}`)}`),
      ...placeholders.map((p, i) => sql`(${valueAt(model, labelOf(model, p)?.path ?? p)})::text AS ${ident(`v${i}`)}`),
      ...caps.map(({ check, index }) => sql`${othersCounted(model, check)} AS ${ident(`n${index}`)}`),
    ]);
    result = { columns, table: ident(model.table), checks, overlaps, placeholders, labels: placeholders.map((p) => labelOf(model, p)?.labels), lock: null, lockRows: null };
    if (overlaps.length || caps.length) {
      const scope = scopeLock(model, overlaps, caps);
      result.lock = scope.byIds;
      result.lockRows = scope.ofRows;
    }
  }
  variants.set(key, result);
  return result;
}

/**
 * The definition's checks on an object as written (inside the write's transaction, so related rows
 * written by the same request count): field -> messages; "non_field_errors" for rules without a field.
 */
export async function runChecks(db: Db, model: ResolvedModel, id: number, settings: RuleSettings = DEFAULT_RULE_SETTINGS): Promise<Record<string, string[]>> {
  const c = compileChecks(model, settings);
  if (!c) return {};
  if (c.lock) await runRows(db, c.lock(sql`${[id]}::bigint[]`));
  const [row] = await runRows<Record<string, unknown>>(db, sql`SELECT ${c.columns} FROM ${c.table} AS "t" CROSS JOIN (SELECT ${[id]}::bigint[] AS "ids") AS "req" WHERE "t"."id" = ${id}::bigint`);
  return row ? verdicts(c, row) : {};
}

/** runChecks for many objects in one statement: id -> field -> messages (objects without errors absent). */
export async function runChecksOnMany(db: Db, model: ResolvedModel, ids: readonly number[], settings: RuleSettings = DEFAULT_RULE_SETTINGS): Promise<Map<number, Record<string, string[]>>> {
  const out = new Map<number, Record<string, string[]>>();
  const c = compileChecks(model, settings);
  if (!c || !ids.length) return out;
  if (c.lock) await runRows(db, c.lock(sql`${[...ids]}::bigint[]`));
  const rows = await runRows<Record<string, unknown>>(db, sql`SELECT "t"."id" AS "id", ${c.columns} FROM ${c.table} AS "t" CROSS JOIN (SELECT ${[...ids]}::bigint[] AS "ids") AS "req" WHERE "t"."id" = ANY("req"."ids")`);
  for (const row of rows) {
    const errors = verdicts(c, row);
    if (Object.keys(errors).length) out.set(Number(row.id), errors);
  }
  return out;
}

/**
 * `{path.label}` in a message, where path ends on a choice field: the choice's label ("VPWS"), as NetBox's
 * get_FOO_display(), rather than its value. Null for any other placeholder.
 */
function labelOf(model: ResolvedModel, placeholder: string): { path: string; labels: ReadonlyMap<unknown, string> } | null {
  if (!placeholder.endsWith('.label')) return null;
  const path = placeholder.slice(0, -'.label'.length);
  let route: FilterPath;
  try {
    route = resolvePath(model, path);
  } catch {
    return null;
  }
  const choices = route.field.kind === 'choice' ? route.field.choices : undefined;
  return choices ? { path, labels: new Map([...choices.labels].map(([v, label]) => [String(v), label])) } : null;
}

/** The messages of a row of the checks' columns (compileChecks): field -> messages, empty when every rule holds. */
export function checkVerdicts(c: CompiledChecks, row: Record<string, unknown>): Record<string, string[]> {
  return verdicts(c, row);
}

function verdicts(c: CompiledChecks, row: Record<string, unknown>): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const shown = (p: string) => {
    const value = row[`v${c.placeholders.indexOf(p)}`];
    const label = value === null || value === undefined ? undefined : c.labels[c.placeholders.indexOf(p)]?.get(String(value));
    return label ?? value;
  };
  const fill = (message: string, special: Record<string, unknown> = {}) =>
    message.replace(PLACEHOLDER, (_m, p: string) => String((p in special ? special[p] : shown(p)) ?? ''));
  c.checks.forEach((check, i) => {
    if (row[`c${i}`] !== true) return;
    (errors[check.field ?? 'non_field_errors'] ??= []).push(fill(check.message, check.at_most !== undefined ? { count: row[`n${i}`] } : {}));
  });
  c.overlaps.forEach((rule, i) => {
    const other = row[`d${i}`];
    if (other === null || other === undefined) return;
    const message = row[`u${i}`] === true && rule.message_when_unset ? rule.message_when_unset : rule.message;
    (errors[rule.field ?? 'non_field_errors'] ??= []).push(fill(message, { other }));
  });
  return errors;
}

/** A stored row that breaks a rule of its definition (rows written before the rule existed: an upgrade). */
export interface BrokenRow {
  id: number;
  display: string;
  errors: Record<string, string[]>;
}

/**
 * Every stored row of a model that breaks its checks or no_overlap rules, judged as a write would judge it
 * but without the write's locks (a report, not a verdict): what `patchbay check --data` and `migrate` tell.
 */
export async function brokenRows(db: Db, model: ResolvedModel, settings: RuleSettings): Promise<BrokenRow[]> {
  const c = compileChecks(model, settings);
  if (!c) return [];
  const rows = await runRows<Record<string, unknown>>(db, sql`SELECT "t"."id" AS "id", ${displaySql(model, 't')} AS "display", ${c.columns} FROM ${c.table} AS "t" CROSS JOIN (SELECT '{}'::bigint[] AS "ids") AS "req" ORDER BY "t"."id"`);
  return rows.flatMap((row) => {
    const errors = verdicts(c, row);
    return Object.keys(errors).length ? [{ id: Number(row.id), display: String(row.display), errors }] : [];
  });
}
