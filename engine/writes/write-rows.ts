import type { ChildrenField, ResolvedModel } from '../definitions/registry-types';
import type { PgError } from '../database/db-errors';
import type { FieldErrors } from '../validation/field-errors';
import { ident, join, sql, type SqlValue } from '../sql/fragment';
import { runRows } from '../database/run';
import { noteFilesLeft } from './stored-files';
import type { Db } from '../database/db';


/** Inserts one object's columns; returns its new id. */
export async function insertRow(db: Db, model: ResolvedModel, columns: Record<string, unknown>): Promise<number> {
  const names = Object.keys(columns);
  const table = ident(model.table);
  const statement = names.length
    ? sql`INSERT INTO ${table} (${join(names.map((n) => ident(n)))}) VALUES (${join(names.map((n) => sql`${columns[n] as SqlValue}`))}) RETURNING "id"`
    : sql`INSERT INTO ${table} DEFAULT VALUES RETURNING "id"`;
  return Number((await runRows<{ id: number }>(db, statement))[0]!.id);
}

/** Updates the named columns (and last_updated); returns whether the row exists. */
export async function updateRow(db: Db, model: ResolvedModel, id: number, columns: Record<string, unknown>, mergeColumns: readonly string[] = []): Promise<boolean> {
  const sets = Object.keys(columns).map((n) => {
    const value = columns[n] as SqlValue;
    return mergeColumns.includes(n) ? sql`${ident(n)} = ${ident(n)} || ${value}::jsonb` : sql`${ident(n)} = ${value}`;
  });
  if (model.lastUpdated) sets.push(sql`"last_updated" = now()`);
  if (!sets.length) sets.push(sql`"id" = "id"`);
  return (await runRows(db, sql`UPDATE ${ident(model.table)} SET ${join(sets)} WHERE "id" = ${id}::bigint RETURNING "id"`)).length > 0;
}

/** Replaces an object's links in a join table with exactly the given ids. */
export async function setLinks(db: Db, joinTable: string, sourceId: number, targetIds: number[]): Promise<void> {
  const t = ident(joinTable);
  await runRows(db, sql`DELETE FROM ${t} WHERE "source_id" = ${sourceId}::bigint AND NOT ("target_id" = ANY(${targetIds}::bigint[]))`);
  if (targetIds.length) {
    await runRows(db, sql`INSERT INTO ${t} ("source_id", "target_id") SELECT ${sourceId}::bigint, unnest(${targetIds}::bigint[]) ON CONFLICT DO NOTHING`);
  }
}

/**
 * Replaces the links of many objects in a join table, in two statements whatever their number: the links
 * no longer given are deleted (`replacing`: the objects existed before), then the given ones inserted.
 */
export async function setLinksOfMany(db: Db, joinTable: string, links: ReadonlyArray<{ source: number; targets: readonly number[] }>, replacing: boolean): Promise<void> {
  const t = ident(joinTable);
  const sources = links.flatMap((l) => l.targets.map(() => l.source));
  const targets = links.flatMap((l) => l.targets);
  if (replacing) {
    await runRows(db, sql`DELETE FROM ${t} AS "j" WHERE "j"."source_id" = ANY(${links.map((l) => l.source)}::bigint[])
      AND NOT EXISTS (SELECT 1 FROM unnest(${sources}::bigint[], ${targets}::bigint[]) AS "k"("s", "t") WHERE "k"."s" = "j"."source_id" AND "k"."t" = "j"."target_id")`);
  }
  if (targets.length) {
    await runRows(db, sql`INSERT INTO ${t} ("source_id", "target_id") SELECT "s", "t" FROM unnest(${sources}::bigint[], ${targets}::bigint[]) AS "k"("s", "t") ON CONFLICT DO NOTHING`);
  }
}

/** Deletes rows by id; returns the ids that existed. The files they name are removed once the transaction commits (stored-files). */
export async function deleteRows(db: Db, model: ResolvedModel, ids: number[]): Promise<number[]> {
  await noteFilesLeft(db, model, ids);
  return (await runRows<{ id: number }>(db, sql`DELETE FROM ${ident(model.table)} WHERE "id" = ANY(${ids}) RETURNING "id"`)).map((r) => r.id);
}

/** Replaces the child rows a children field holds (e.g. a cable's A-end terminations) with exactly these objects. */
export async function setChildren(db: Db, field: ChildrenField, parentId: number, refs: Array<{ type: string; id: number }>): Promise<void> {
  const { model: child, via, generic, where } = field.children;
  const fixed = Object.entries(where);
  const t = ident(child.table);
  const viaColumn = ident(via.column);
  const fixedMatch = fixed.map(([c, v]) => sql` AND ${ident(c)} = ${v}`);
  await runRows(db, sql`DELETE FROM ${t} WHERE ${viaColumn} = ${parentId}::bigint${join(fixedMatch, '')}`);
  const cols = join([viaColumn, ...fixed.map(([c]) => ident(c)), ident(generic.typeColumn), ident(generic.idColumn)]);
  for (const ref of refs) {
    const values = join([sql`${parentId}`, ...fixed.map(([, v]) => sql`${v}`), sql`${ref.type}`, sql`${ref.id}`]);
    await runRows(db, sql`INSERT INTO ${t} (${cols}) VALUES (${values})`);
  }
}

/** A child row refused by its own uniqueness (an interface already holding a cable), told on the children field. */
export function childConstraintErrors(model: ResolvedModel, e: PgError): FieldErrors | null {
  if (e.code !== '23505') return null;
  const field = model.fieldList.find((f): f is ChildrenField => f.kind === 'children' && f.children.model.table === e.table);
  if (!field) return null;
  const u = field.children.model.uniques.find((x) => x.constraint === e.constraint);
  const value = /\)=\(([^)]*)\)/.exec(e.detail ?? '')?.[1] ?? '';
  return { [field.name]: [u?.message ?? `Duplicate termination found for ${value.replace(', ', ':')}.`] };
}
