import type { FkField, ResolvedField, ResolvedModel } from '../definitions/registry-types';
import { ident, join, sql } from '../sql/fragment';
import { runRows } from '../database/run';
import type { Db } from '../database/db';
import type { WriteMode } from './prepare-write';

/** A `filled_from` field (a foreign key or a choice): the model's foreign key it reads through, and the target's field it copies. */
interface FillRoute {
  field: ResolvedField & { column: string };
  via: FkField;
  from: ResolvedField & { column: string };
  onCreateOnly: boolean;
}

/** Whether two fields hold the same kind of value: foreign keys to one model, or choices of one set. */
function sameKind(a: ResolvedField, b: ResolvedField): boolean {
  if (a.kind === 'fk' && b.kind === 'fk') return a.target === b.target;
  if (a.kind === 'choice' && b.kind === 'choice') return a.choices.name === b.choices.name && !a.array && !b.array;
  return false;
}

/** The route of a field's `filled_from` ("cluster.site"), checked at startup: a foreign key, then a field of the same kind as this one. */
export function fillRoute(model: ResolvedModel, field: ResolvedField): FillRoute | null {
  const def = field.def;
  const path = def.type === 'fk' || def.type === 'choice' ? def.filled_from : undefined;
  if (!path || !field.column) return null;
  const [first, second] = path.split('.') as [string, string];
  const via = model.fields.get(first);
  if (via?.kind !== 'fk') throw new Error(`${model.label}.${field.name}: filled_from ${path}: ${first} is not a foreign key of ${model.label}`);
  const from = via.target.fields.get(second);
  if (!from?.column || !sameKind(field, from)) throw new Error(`${model.label}.${field.name}: filled_from ${path}: ${second} is not a field of ${via.target.label} holding what ${field.name} holds`);
  const onCreateOnly = (def.type === 'fk' || def.type === 'choice') && def.filled_on_create === true;
  return { field: field as ResolvedField & { column: string }, via, from: from as ResolvedField & { column: string }, onCreateOnly };
}

/**
 * NetBox's save() filling a foreign key from a related object when the write leaves it unset (a virtual
 * machine's site from its cluster). Read in the write's transaction, FOR SHARE: the related row cannot
 * change before this write commits, so the value copied is the one the checks then judge.
 */
export async function fillFromRelated(db: Db, model: ResolvedModel, columns: Record<string, unknown>, mode: WriteMode, id: number | undefined): Promise<void> {
  for (const field of model.fieldList) {
    if (field.kind !== 'fk' && field.kind !== 'choice') continue;
    const route = fillRoute(model, field);
    if (!route || (route.onCreateOnly && mode !== 'create')) continue;
    const own = route.field.column;
    const through = route.via.column;
    // A change touching neither foreign key leaves the row as it was.
    if (mode !== 'create' && !(own in columns) && !(through in columns)) continue;
    const current = mode === 'create' || id === undefined
      ? undefined
      : (await runRows<{ own: unknown; through: unknown }>(db, sql`SELECT ${ident(own)} AS "own", ${ident(through)} AS "through" FROM ${ident(model.table)} WHERE "id" = ${id}::bigint`))[0];
    const ownValue = own in columns ? columns[own] : current?.own ?? null;
    const throughValue = through in columns ? columns[through] : current?.through ?? null;
    // Unset: null, or a blank choice.
    if (ownValue !== null && ownValue !== undefined && ownValue !== '') continue;
    if (throughValue === null || throughValue === undefined) continue;
    const [row] = await runRows<{ v: unknown }>(db, sql`SELECT ${ident(route.from.column)} AS "v" FROM ${ident(route.via.target.table)} WHERE "id" = ${Number(throughValue)}::bigint FOR SHARE`);
    if (row?.v !== null && row?.v !== undefined && row.v !== '') columns[own] = row.v;
  }
}

/** The stored columns of a field's `cleared_without` fields, checked at startup: the field may be null, each named field is stored. */
export function clearedWithout(model: ResolvedModel, field: ResolvedField): string[] | null {
  const def = field.def;
  const names = def.type === 'fk' || def.type === 'choice' ? def.cleared_without : undefined;
  if (!names) return null;
  if (!field.nullable || !field.column) throw new Error(`${model.label}.${field.name}: cleared_without clears to null, and the field cannot be null`);
  return names.map((name) => {
    const f = model.fields.get(name);
    if (!f?.column || f.array) throw new Error(`${model.label}.${field.name}: cleared_without names ${name}, not a single stored field of ${model.label}`);
    return f.column;
  });
}

const unset = (v: unknown) => v === null || v === undefined || v === '';

/**
 * NetBox's save() clearing a field that means nothing without others (a cable's length unit without a
 * length): after the write, when every field named is unset, so is this one. A change touching none of
 * them leaves the row as it was.
 */
export async function clearWithout(db: Db, model: ResolvedModel, columns: Record<string, unknown>, mode: WriteMode, id: number | undefined): Promise<void> {
  for (const field of model.fieldList) {
    if (field.kind !== 'fk' && field.kind !== 'choice') continue;
    const others = clearedWithout(model, field);
    if (!others || !field.column) continue;
    const own = field.column;
    const touched = [own, ...others].filter((c) => c in columns);
    if (mode !== 'create' && !touched.length) continue;
    const missing = [own, ...others].filter((c) => !(c in columns));
    const current = mode === 'create' || id === undefined || !missing.length
      ? {}
      : (await runRows<Record<string, unknown>>(db, sql`SELECT ${join(missing.map((c) => sql`${ident(c)}`))} FROM ${ident(model.table)} WHERE "id" = ${id}::bigint`))[0] ?? {};
    const after = (c: string) => (c in columns ? columns[c] : current[c]);
    if (unset(after(own)) || !others.every((c) => unset(after(c)))) continue;
    // A foreign key naming no row is refused as ever (by its constraint), not cleared into acceptance.
    if (field.kind === 'fk' && own in columns) {
      const [found] = await runRows<{ n: number }>(db, sql`SELECT count(*)::int AS "n" FROM ${ident(field.target.table)} WHERE "id" = ${Number(columns[own])}::bigint`);
      if (!found?.n) continue;
    }
    columns[own] = null;
  }
}
