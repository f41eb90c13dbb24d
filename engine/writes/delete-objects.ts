import type { GenericField, Registry, ResolvedModel } from '../definitions/registry-types';
import { column, ident, sql } from '../sql/fragment';
import { runRows } from '../database/run';
import { rowSelectList, type Row } from '../reads/row-columns';
import { deleteRows } from './write-rows';
import { MAX_TREE_DEPTH } from '../reads/tree-walk';
import { fileFields, noteFilesLeft } from './stored-files';
import { noteTerminationsDeleting } from '../domain/cables/cable-paths';
import type { Db } from '../database/db';


/** How far a delete follows cascades (a tree's self-cascade goes as deep as the tree). */
const MAX_CASCADE_DEPTH = MAX_TREE_DEPTH;

/** A delete refused because objects refer to the deleted ones through a protecting generic relation. */
export class GenericProtectedError extends Error {
  constructor(
    readonly model: ResolvedModel,
    readonly ids: number[],
  ) {
    super(`${ids.length} ${model.verboseNamePlural} refer to the object`);
  }
}

/** Generic relations (type + id columns) that may point at objects of this model. */
function genericDependents(registry: Registry, model: ResolvedModel): GenericField[] {
  const out: GenericField[] = [];
  for (const m of registry.models.values()) {
    for (const f of m.fieldList) {
      // keep: the reference outlives its target (the change log's changed_object); nothing to follow.
      if (f.kind === 'generic_fk' && f.def.on_delete !== 'keep' && f.genericTargets.includes(model)) out.push(f);
    }
  }
  return out;
}

/** Locks the rows of a table matching `column = ANY(ids)` FOR UPDATE, in id order (so two deletes cannot deadlock on them); returns their ids. */
async function lockRows(db: Db, model: ResolvedModel, columnName: string, ids: number[]): Promise<number[]> {
  const rows = await runRows<{ id: number }>(db, sql`SELECT "id" FROM ${ident(model.table)} WHERE ${ident(columnName)} = ANY(${ids}) ORDER BY "id" FOR UPDATE`);
  return rows.map((r) => r.id);
}

/**
 * Deletes objects. Foreign keys act in the database (protect, cascade, set null); generic relations,
 * which the database cannot see, are followed here with the on_delete their definition names.
 *
 * Generic references are found with a query, so a reference committed after that query would be left
 * pointing at nothing. The rows to delete, and the rows the database will cascade to that can have
 * generic dependents, are therefore locked FOR UPDATE (top down, each table in id order) before their
 * dependents are looked for. A writer that names one of them takes FOR KEY SHARE on it (resolve-related's
 * missingIds): it either committed before the lock was granted, and its reference is then found and
 * followed, or it waits for this delete and then finds its target gone.
 */
export async function deleteObjects(db: Db, registry: Registry, model: ResolvedModel, ids: number[], depth = 0): Promise<number[]> {
  if (depth > MAX_CASCADE_DEPTH || !ids.length) return [];
  const locked = await lockRows(db, model, 'id', ids);
  // Cable ends going: their cables' paths are traced again once the delete is done (retraceCablesLosingEnds).
  await noteTerminationsDeleting(db, registry, model, locked);
  await releaseGenericDependents(db, registry, model, locked, depth, new Set(locked));
  return deleteRows(db, model, locked);
}

/**
 * Whether deleting this model's rows (and what the database cascades to) can leave generic references
 * behind, or rows whose stored files must go with them.
 */
function reachesGeneric(registry: Registry, model: ResolvedModel, seen = new Set<ResolvedModel>()): boolean {
  if (seen.has(model)) return false;
  seen.add(model);
  if (genericDependents(registry, model).length || fileFields(model).length) return true;
  return model.reverse.some((rel) => rel.def.on_delete === 'cascade' && reachesGeneric(registry, rel.model, seen));
}

/**
 * Applies generic relations' on_delete for the rows about to go (locked by the caller), and for the rows
 * the database will cascade to (a device's interfaces take their cable terminations and IP assignments
 * with them; a region its child regions, and their VLAN groups), each level locked before it is searched.
 * `seen` holds the rows of a self-referencing cascade already visited, so a cycle in it ends.
 */
async function releaseGenericDependents(db: Db, registry: Registry, model: ResolvedModel, ids: number[], depth: number, seen: Set<number>): Promise<void> {
  if (depth > MAX_CASCADE_DEPTH || !ids.length) return;
  for (const rel of model.reverse) {
    if (rel.def.on_delete !== 'cascade' || !reachesGeneric(registry, rel.model)) continue;
    const self = rel.model === model;
    const children = (await lockRows(db, rel.model, rel.column, ids)).filter((id) => !self || !seen.has(id));
    if (self) for (const id of children) seen.add(id);
    // The database deletes these rows itself: the files they name are noted now, to go after the commit.
    await noteFilesLeft(db, rel.model, children);
    await releaseGenericDependents(db, registry, rel.model, children, depth + 1, self ? seen : new Set(children));
  }
  for (const f of genericDependents(registry, model)) {
    const t = ident(f.model.table);
    const typeCol = ident(f.typeColumn);
    const idCol = ident(f.idColumn);
    const pointsHere = sql`${typeCol} = ${model.label}::text AND ${idCol} = ANY(${ids})`;
    if (f.def.on_delete === 'cascade' || f.def.on_delete === 'protect') {
      const childIds = (await runRows<{ id: number }>(db, sql`SELECT "id" FROM ${t} WHERE ${pointsHere}`)).map((r) => r.id);
      if (f.def.on_delete === 'protect' && childIds.length) throw new GenericProtectedError(f.model, childIds);
      await deleteObjects(db, registry, f.model, childIds, depth + 1);
    } else {
      await runRows(db, sql`UPDATE ${t} SET ${typeCol} = NULL, ${idCol} = NULL WHERE ${pointsHere}`);
    }
  }
}

/**
 * The objects that keep the given ones from being deleted: rows of protecting foreign keys, found
 * through cascades as the database would follow them. Used to word the 409.
 */
export async function protectingObjects(db: Db, model: ResolvedModel, ids: number[], depth = 0): Promise<Array<{ model: ResolvedModel; row: Row }>> {
  if (depth > 10 || !ids.length) return [];
  const out: Array<{ model: ResolvedModel; row: Row }> = [];
  for (const rel of model.reverse) {
    const child = rel.model;
    const where = sql`${column('t', rel.column)} = ANY(${ids})`;
    if (rel.def.on_delete === 'protect') {
      const rows = await runRows<Row>(db, sql`SELECT ${rowSelectList(child, 't')} FROM ${ident(child.table)} AS "t" WHERE ${where} ORDER BY "t"."id" LIMIT 100`);
      for (const row of rows) out.push({ model: child, row });
    } else if (rel.def.on_delete === 'cascade' && child !== model) {
      const rows = await runRows<{ id: number }>(db, sql`SELECT "t"."id" FROM ${ident(child.table)} AS "t" WHERE ${where}`);
      out.push(...(await protectingObjects(db, child, rows.map((r) => r.id), depth + 1)));
    }
  }
  return out;
}
