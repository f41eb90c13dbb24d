import type { InstantiateRule } from '../../definitions/generated/model-definition';
import type { Registry, ResolvedField, ResolvedModel } from '../../definitions/registry-types';
import { HttpError } from '../../http/http-error';
import { runRows } from '../../database/run';
import { and, column, ident, join, sql, type Sql } from '../../sql/fragment';
import { asPgError, NOT_NULL_VIOLATION, UNIQUE_VIOLATION } from '../../database/db-errors';
import type { Db } from '../../database/db';


/**
 * The `instantiate` word: rows copied from templates when objects are created (a device's ports from its
 * type's port templates, a module's from its module type's). Each rule is one INSERT ... SELECT for every
 * object the request created, so a bulk create of many devices costs a statement per rule, not per row.
 * Aliases: o the new objects, t the templates, c the copies, r a copy referred to, tt a template referred to.
 */
export async function instantiate(db: Db, registry: Registry, model: ResolvedModel, ids: readonly number[]): Promise<void> {
  if (!ids.length) return;
  for (const rule of model.def.instantiate ?? []) {
    const plan = planRule(registry, model, rule);
    try {
      await runRows(db, insertCopies(plan, ids));
      for (const ref of plan.selfRefs) await runRows(db, linkSelfRefs(plan, ref, ids));
    } catch (e) {
      const pg = asPgError(e);
      // A copy whose name the object already uses (a module's {module}-renamed port beside the device's own).
      if (pg?.code === UNIQUE_VIOLATION) {
        throw new HttpError(400, { non_field_errors: [`Cannot create the ${plan.to.verboseNamePlural} of this ${model.verboseName}: ${pg.detail ?? 'a name is already in use'}`] });
      }
      // A template referring to one that is not copied with it (a front port template whose rear port belongs to another type).
      if (pg?.code === NOT_NULL_VIOLATION) {
        throw new HttpError(400, { non_field_errors: [`Cannot create the ${plan.to.verboseNamePlural} of this ${model.verboseName}: a ${plan.from.verboseName} refers to a template that is not copied with it.`] });
      }
      throw e;
    }
  }
}

interface Ref {
  /** The template's foreign key and the copy's field of the same name. */
  tplField: ResolvedField;
  copyField: ResolvedField;
  /** The field both the template referred to and its copy are found by (name). */
  by: ResolvedField;
}

interface Plan {
  from: ResolvedModel;
  to: ResolvedModel;
  model: ResolvedModel;
  /** Template column = object column: which templates an object copies. */
  matchTpl: ResolvedField;
  matchOwn: ResolvedField;
  /** Copy column -> expression over o (o.id or one of its columns). */
  set: Array<{ copy: ResolvedField; value: Sql }>;
  copy: ResolvedField[];
  refs: Ref[];
  selfRefs: Ref[];
  substitute: Array<{ placeholder: string; value: Sql; in: ReadonlySet<string> }>;
}

/** The rule resolved against the registry (checked at startup by checkInstantiateRules). */
export function planRule(registry: Registry, model: ResolvedModel, rule: InstantiateRule): Plan {
  const from = registry.models.get(rule.from)!;
  const to = registry.models.get(rule.to)!;
  const [tplName, ownName] = Object.entries(rule.match)[0]!;
  const set = Object.entries(rule.set).map(([copyName, own]) => ({
    copy: to.fields.get(copyName)!,
    value: own === 'id' ? column('o', 'id') : column('o', model.fields.get(own)!.column!),
  }));
  const refs: Ref[] = [];
  const selfRefs: Ref[] = [];
  for (const [name, byName] of Object.entries(rule.refs ?? {})) {
    const copyField = to.fields.get(name)!;
    const ref = { tplField: from.fields.get(name)!, copyField, by: copyField.target!.fields.get(byName)! };
    (copyField.target === to ? selfRefs : refs).push(ref);
  }
  const substitute = rule.substitute ? [{ placeholder: rule.substitute.placeholder, value: pathValue(model, rule.substitute.with), in: new Set(rule.substitute.in) }] : [];
  return {
    from,
    to,
    model,
    matchTpl: from.fields.get(tplName)!,
    matchOwn: model.fields.get(ownName)!,
    set,
    copy: (rule.copy ?? []).map((n) => from.fields.get(n)!),
    refs,
    selfRefs,
    substitute,
  };
}

/** A path on o through at most one foreign key (module_bay.position), as a scalar subquery. */
function pathValue(model: ResolvedModel, path: string): Sql {
  const [head, tail] = path.split('.');
  const f = model.fields.get(head!)!;
  if (!tail) return column('o', f.column!);
  const target = f.target!;
  return sql`(SELECT ${ident(target.fields.get(tail)!.column!)} FROM ${ident(target.table)} WHERE "id" = ${column('o', f.column!)})`;
}

/** A template's text with every placeholder replaced (NetBox's {module}: an unset position leaves it as is). */
function substituted(plan: Plan, value: Sql, field: ResolvedField): Sql {
  let out = value;
  for (const s of plan.substitute) if (s.in.has(field.name)) out = sql`replace(${out}, ${s.placeholder}::text, COALESCE(${s.value}::text, ${s.placeholder}::text))`;
  return out;
}

/** The rows of `to` made for the object o: their set columns hold o's values. */
function madeFor(plan: Plan, alias: string): Sql {
  return and(plan.set.map((s) => sql`${column(alias, s.copy.column!)} = ${s.value}`));
}

function insertCopies(plan: Plan, ids: readonly number[]): Sql {
  const cols: Sql[] = [];
  const values: Sql[] = [];
  for (const s of plan.set) {
    cols.push(ident(s.copy.column!));
    values.push(s.value);
  }
  for (const f of plan.copy) {
    cols.push(ident(plan.to.fields.get(f.name)!.column!));
    values.push(substituted(plan, column('t', f.column!), f));
  }
  for (const ref of plan.refs) {
    // The copy of the template this one refers to, among the copies made for the same object.
    const target = ref.copyField.target!;
    const tplTarget = ref.tplField.target!;
    const tplBy = tplTarget.fields.get(ref.by.name)!;
    cols.push(ident(ref.copyField.column!));
    values.push(
      sql`(SELECT r."id" FROM ${ident(target.table)} r, ${ident(tplTarget.table)} tt WHERE tt."id" = ${column('t', ref.tplField.column!)} AND ${madeFor(plan, 'r')} AND ${column('r', ref.by.column!)} = ${substituted(plan, column('tt', tplBy.column!), tplBy)})`,
    );
  }
  return sql`INSERT INTO ${ident(plan.to.table)} (${join(cols)})
    SELECT ${join(values)} FROM ${ident(plan.model.table)} o JOIN ${ident(plan.from.table)} t ON ${column('t', plan.matchTpl.column!)} = ${column('o', plan.matchOwn.column!)}
    WHERE o."id" = ANY(${[...ids]}::bigint[]) ORDER BY o."id", t."id"`;
}

/**
 * A reference into the rule's own copies (an inventory item's parent, an interface's bridge), set once
 * they all exist: each copy c, found again by its template t through the `by` field, gets the copy r of
 * the template t refers to.
 */
function linkSelfRefs(plan: Plan, ref: Ref, ids: readonly number[]): Sql {
  const by = plan.from.fields.get(ref.by.name)!;
  const copyBy = plan.to.fields.get(ref.by.name)!;
  return sql`UPDATE ${ident(plan.to.table)} c SET ${ident(ref.copyField.column!)} = r."id"
    FROM ${ident(plan.model.table)} o, ${ident(plan.from.table)} t, ${ident(plan.from.table)} tt, ${ident(plan.to.table)} r
    WHERE o."id" = ANY(${[...ids]}::bigint[]) AND ${column('t', plan.matchTpl.column!)} = ${column('o', plan.matchOwn.column!)}
      AND ${madeFor(plan, 'c')} AND ${column('c', copyBy.column!)} = ${substituted(plan, column('t', by.column!), by)}
      AND tt."id" = ${column('t', ref.tplField.column!)} AND ${madeFor(plan, 'r')} AND ${column('r', copyBy.column!)} = ${substituted(plan, column('tt', by.column!), by)}`;
}
