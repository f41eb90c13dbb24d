import type { Knex } from 'knex';
import type { Registry, ResolvedField, ResolvedModel } from '../definitions/registry-types';
import { quoteIdent } from '../storage/identifiers';
import { treeWalk } from './tree-walk';
import type { Row } from './row-columns';

type Db = Knex | Knex.Transaction;
type Json = Record<string, unknown>;

interface Context {
  id: number;
  data: unknown;
  /** assignment field -> assigned ids (absent: no assignment of that kind, so it matches everything) */
  assigned: Map<string, Set<number>>;
}

function isPlainObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** NetBox's deepmerge: objects merge key by key, recursively; anything else is replaced. */
export function deepMerge(base: Json, over: Json): Json {
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(over)) {
    out[k] = isPlainObject(v) && isPlainObject(out[k]) ? deepMerge(out[k] as Json, v) : v;
  }
  return out;
}

/**
 * The values a path (site.region, tags) takes for each row, resolved hop by hop with one query per
 * hop; for a tree target the ancestors are included, as a context assigned to a parent region
 * applies to sites in its children.
 */
async function pathValues(db: Db, model: ResolvedModel, rows: Row[], path: string): Promise<Map<number, Set<number>>> {
  let current = model;
  // row id -> ids reached so far along the path
  let reached = new Map<number, number[]>(rows.map((r) => [r.id, [r.id]]));
  let atRows = true;
  for (const part of path.split('.')) {
    const f = current.fields.get(part)!;
    const from = [...new Set([...reached.values()].flat())];
    const step = new Map<number, number[]>();
    if (f.kind === 'fk') {
      if (atRows) for (const r of rows) step.set(r.id, r[f.column!] == null ? [] : [Number(r[f.column!])]);
      else if (from.length) {
        const res = await db.raw(`SELECT "id", ${quoteIdent(f.column!)} AS "v" FROM ${quoteIdent(current.table)} WHERE "id" = ANY(?)`, [from]);
        for (const x of res.rows as Array<{ id: number; v: number | null }>) step.set(x.id, x.v == null ? [] : [x.v]);
      }
    } else if (from.length) {
      const res = await db.raw(`SELECT "source_id" AS "id", "target_id" AS "v" FROM ${quoteIdent(f.joinTable!)} WHERE "source_id" = ANY(?)`, [from]);
      for (const x of res.rows as Array<{ id: number; v: number }>) step.set(x.id, [...(step.get(x.id) ?? []), x.v]);
    }
    const next = new Map<number, number[]>();
    for (const [rowId, ids] of reached) next.set(rowId, ids.flatMap((id) => step.get(id) ?? []));
    reached = next;
    current = f.target!;
    atRows = false;
  }
  if (current.tree) {
    const all = [...new Set([...reached.values()].flat())];
    if (all.length) {
      const res = await db.raw(
        `WITH RECURSIVE ${treeWalk('up', current.table, '"id" = ANY(?)', 'up')} SELECT "origin", "id" FROM up`,
        [all],
      );
      const ancestors = new Map<number, number[]>();
      for (const x of res.rows as Array<{ origin: number; id: number }>) ancestors.set(x.origin, [...(ancestors.get(x.origin) ?? []), x.id]);
      for (const [rowId, ids] of reached) reached.set(rowId, ids.flatMap((id) => ancestors.get(id) ?? [id]));
    }
  }
  return new Map([...reached].map(([k, v]) => [k, new Set(v)]));
}

/** Every active config context with its assignments: two queries, whatever the page. */
async function activeContexts(db: Db, cc: ResolvedModel, assignFields: ResolvedField[]): Promise<Context[]> {
  const res = await db.raw(`SELECT "id", "data" FROM ${quoteIdent(cc.table)} WHERE "is_active" ORDER BY "weight", "name", "id"`);
  const contexts = (res.rows as Array<{ id: number; data: unknown }>).map((r) => ({ id: r.id, data: r.data, assigned: new Map<string, Set<number>>() }));
  if (!contexts.length || !assignFields.length) return contexts;
  const byId = new Map(contexts.map((c) => [c.id, c]));
  const union = assignFields.map((f, i) => `SELECT ${i} AS "k", "source_id", "target_id" FROM ${quoteIdent(f.joinTable!)}`).join(' UNION ALL ');
  const links = await db.raw(union);
  for (const l of links.rows as Array<{ k: number; source_id: number; target_id: number }>) {
    const c = byId.get(l.source_id);
    if (!c) continue;
    const name = assignFields[l.k]!.name;
    let set = c.assigned.get(name);
    if (!set) c.assigned.set(name, (set = new Set()));
    set.add(l.target_id);
  }
  return contexts;
}

/**
 * The rendered configuration context of each row: the deep merge of every active context that
 * matches the object on every kind of assignment it has, in weight then name order, with the
 * object's local context data merged last. A fixed number of queries for any number of rows.
 */
export async function renderConfigContexts(db: Db, registry: Registry, model: ResolvedModel, field: ResolvedField, rows: Row[]): Promise<Map<number, Json>> {
  const cc = registry.roles.get('config_context')!;
  const match = Object.entries(field.def.match ?? {});
  const assignFields = match.map(([name]) => cc.fields.get(name)!);
  const contexts = await activeContexts(db, cc, assignFields);
  const values = new Map<string, Map<number, Set<number>>>();
  for (const [name, path] of match) {
    if (contexts.some((c) => c.assigned.has(name))) values.set(name, await pathValues(db, model, rows, path));
  }
  const local = field.def.local ? model.fields.get(field.def.local) : undefined;
  const out = new Map<number, Json>();
  for (const row of rows) {
    let merged: Json = {};
    for (const c of contexts) {
      let applies = true;
      for (const [name, assigned] of c.assigned) {
        const have = values.get(name)?.get(row.id);
        if (!have || ![...have].some((id) => assigned.has(id))) {
          applies = false;
          break;
        }
      }
      if (applies && isPlainObject(c.data)) merged = deepMerge(merged, c.data);
    }
    const own = local ? row[local.column!] : undefined;
    if (isPlainObject(own)) merged = deepMerge(merged, own);
    out.set(row.id, merged);
  }
  return out;
}
