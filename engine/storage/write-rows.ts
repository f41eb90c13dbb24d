import type { Knex } from 'knex';
import type { ResolvedField, ResolvedModel } from '../definitions/registry-types';
import type { PgError } from './db-errors';
import type { FieldErrors } from '../validation/field-errors';
import { quoteIdent } from './identifiers';

type Db = Knex | Knex.Transaction;

/** Inserts one object's columns; returns its new id. */
export async function insertRow(db: Db, model: ResolvedModel, columns: Record<string, unknown>): Promise<number> {
  const names = Object.keys(columns);
  const sql = names.length
    ? `INSERT INTO ${quoteIdent(model.table)} (${names.map(quoteIdent).join(', ')}) VALUES (${names.map(() => '?').join(', ')}) RETURNING "id"`
    : `INSERT INTO ${quoteIdent(model.table)} DEFAULT VALUES RETURNING "id"`;
  const result = await db.raw(sql, names.map((n) => columns[n]) as Knex.RawBinding[]);
  return (result.rows as Array<{ id: number }>)[0]!.id;
}

/** Updates the named columns (and last_updated); returns whether the row exists. */
export async function updateRow(db: Db, model: ResolvedModel, id: number, columns: Record<string, unknown>, mergeColumns: readonly string[] = []): Promise<boolean> {
  const names = Object.keys(columns);
  const sets = names.map((n) => (mergeColumns.includes(n) ? `${quoteIdent(n)} = ${quoteIdent(n)} || ?::jsonb` : `${quoteIdent(n)} = ?`));
  if (model.timestamps !== false) sets.push(`"last_updated" = now()`);
  if (!sets.length) sets.push('"id" = "id"');
  const result = await db.raw(`UPDATE ${quoteIdent(model.table)} SET ${sets.join(', ')} WHERE "id" = ?`, [...names.map((n) => columns[n]), id] as Knex.RawBinding[]);
  return (result.rowCount ?? 0) > 0;
}

/** Replaces an object's links in a join table with exactly the given ids. */
export async function setLinks(db: Db, joinTable: string, sourceId: number, targetIds: number[]): Promise<void> {
  const t = quoteIdent(joinTable);
  await db.raw(`DELETE FROM ${t} WHERE "source_id" = ? AND NOT ("target_id" = ANY(?))`, [sourceId, targetIds]);
  if (targetIds.length) {
    await db.raw(`INSERT INTO ${t} ("source_id", "target_id") SELECT ?, unnest(?::bigint[]) ON CONFLICT DO NOTHING`, [sourceId, targetIds]);
  }
}

/** Deletes rows by id; returns the ids that existed. */
export async function deleteRows(db: Db, model: ResolvedModel, ids: number[]): Promise<number[]> {
  const result = await db.raw(`DELETE FROM ${quoteIdent(model.table)} WHERE "id" = ANY(?) RETURNING "id"`, [ids]);
  return (result.rows as Array<{ id: number }>).map((r) => r.id);
}

/** Replaces the child rows a children field holds (e.g. a cable's A-end terminations) with exactly these objects. */
export async function setChildren(db: Db, field: ResolvedField, parentId: number, refs: Array<{ type: string; id: number }>): Promise<void> {
  const { model: child, via, generic, where } = field.children!;
  const fixed = Object.entries(where);
  const t = quoteIdent(child.table);
  await db.raw(
    `DELETE FROM ${t} WHERE ${quoteIdent(via.column!)} = ?${fixed.map(([c]) => ` AND ${quoteIdent(c)} = ?`).join('')}`,
    [parentId, ...fixed.map(([, v]) => v)] as Knex.RawBinding[],
  );
  for (const ref of refs) {
    const cols = [via.column!, ...fixed.map(([c]) => c), generic.typeColumn!, generic.idColumn!];
    const values = [parentId, ...fixed.map(([, v]) => v), ref.type, ref.id];
    await db.raw(`INSERT INTO ${t} (${cols.map(quoteIdent).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`, values as Knex.RawBinding[]);
  }
}

/** A child row refused by its own uniqueness (an interface already holding a cable), told on the children field. */
export function childConstraintErrors(model: ResolvedModel, e: PgError): FieldErrors | null {
  if (e.code !== '23505') return null;
  const field = model.fieldList.find((f) => f.children && f.children.model.table === e.table);
  if (!field) return null;
  const u = field.children!.model.uniques.find((x) => x.constraint === e.constraint);
  const value = /\)=\(([^)]*)\)/.exec(e.detail ?? '')?.[1] ?? '';
  return { [field.name]: [u?.message ?? `Duplicate termination found for ${value.replace(', ', ':')}.`] };
}
