import type { Knex } from 'knex';
import type { Registry, ResolvedField, ResolvedModel } from '../definitions/registry-types';
import { quoteIdent } from '../storage/identifiers';
import { genericTarget } from '../definitions/resolve-registry';
import { rowSelectList, type Row } from './row-columns';
import type { RelatedData } from './related-loader';

type Db = Knex | Knex.Transaction;
type Want = (m: ResolvedModel, id: unknown) => void;

/** One attached object, as children fields show it. */
export interface GenericRef {
  type: string;
  id: number;
}

function key(model: ResolvedModel, field: ResolvedField): string {
  return `${model.label}.${field.name}`;
}

/** children: the child rows of each parent (e.g. a cable's A-end terminations), and the objects they name. */
export async function loadChildren(db: Db, registry: Registry, data: RelatedData, model: ResolvedModel, field: ResolvedField, ids: number[], want: Want): Promise<void> {
  const { model: child, via, generic, where } = field.children!;
  const bindings: unknown[] = [ids];
  let sql = `SELECT "id", ${quoteIdent(via.column!)} AS "parent", ${quoteIdent(generic.typeColumn!)} AS "type", ${quoteIdent(generic.idColumn!)} AS "oid" FROM ${quoteIdent(child.table)} WHERE ${quoteIdent(via.column!)} = ANY(?)`;
  for (const [col, v] of Object.entries(where)) {
    sql += ` AND ${quoteIdent(col)} = ?`;
    bindings.push(v);
  }
  const result = await db.raw(`${sql} ORDER BY "id"`, bindings as Knex.RawBinding[]);
  const map = new Map<number, GenericRef[]>();
  for (const r of result.rows as Array<{ parent: number; type: string; oid: number }>) {
    map.set(r.parent, [...(map.get(r.parent) ?? []), { type: r.type, id: r.oid }]);
    const target = genericTarget(generic, r.type);
    if (target) want(target, r.oid);
  }
  data.children.set(key(model, field), map);
}

/** The row of another model whose generic relation points at each object (a termination naming an interface). */
async function reverseRows(db: Db, data: RelatedData, model: ResolvedModel, field: ResolvedField, ids: number[]): Promise<Map<number, Row>> {
  const { model: holder, via } = field.reverse!;
  const cacheKey = `${model.label}<-${holder.label}.${via.name}`;
  let cached = data.reverseRows.get(cacheKey);
  if (!cached) data.reverseRows.set(cacheKey, (cached = { asked: new Set(), rows: new Map() }));
  // Several fields (cable, cable_end, link_peers...) read the same rows: ask once per object.
  const missing = ids.filter((id) => !cached!.asked.has(id));
  if (missing.length) {
    const result = await db.raw(
      `SELECT ${rowSelectList(holder, 't')} FROM ${quoteIdent(holder.table)} AS "t" WHERE "t".${quoteIdent(via.typeColumn!)} = ? AND "t".${quoteIdent(via.idColumn!)} = ANY(?)`,
      [model.label, missing],
    );
    for (const id of missing) cached.asked.add(id);
    for (const r of result.rows as Row[]) cached.rows.set(Number(r[via.idColumn!]), r);
  }
  return cached.rows;
}

/** reverse_generic: the pointing row of each object, and the object its picked relation names (the cable). */
export async function loadReverse(db: Db, data: RelatedData, model: ResolvedModel, field: ResolvedField, ids: number[], want: Want): Promise<void> {
  const rows = await reverseRows(db, data, model, field, ids);
  data.reverse.set(key(model, field), rows);
  const pick = field.reverse!.pick;
  if (pick?.kind === 'fk' && pick.target) for (const r of rows.values()) want(pick.target, r[pick.column!]);
}

/** link_peers: the objects at the other end of each object's link (the interfaces across its cable). */
export async function loadPeers(db: Db, registry: Registry, data: RelatedData, model: ResolvedModel, field: ResolvedField, ids: number[], want: Want): Promise<void> {
  const mine = await reverseRows(db, data, model, field, ids);
  const { model: holder, via, group, side } = field.reverse!;
  const groups = [...new Set([...mine.values()].map((r) => r[group!.column!]).filter((v): v is number => typeof v === 'number'))];
  const peers = new Map<number, GenericRef[]>();
  if (groups.length) {
    const result = await db.raw(
      `SELECT ${quoteIdent(group!.column!)} AS "g", ${quoteIdent(side!.column!)} AS "s", ${quoteIdent(via.typeColumn!)} AS "type", ${quoteIdent(via.idColumn!)} AS "oid"
         FROM ${quoteIdent(holder.table)} WHERE ${quoteIdent(group!.column!)} = ANY(?) ORDER BY "id"`,
      [groups],
    );
    const byGroup = new Map<number, Array<{ s: unknown; type: string; oid: number }>>();
    for (const r of result.rows as Array<{ g: number; s: unknown; type: string; oid: number }>) byGroup.set(r.g, [...(byGroup.get(r.g) ?? []), r]);
    for (const [ownerId, row] of mine) {
      const others = (byGroup.get(Number(row[group!.column!])) ?? []).filter((p) => p.s !== row[side!.column!]);
      peers.set(ownerId, others.map((p) => ({ type: p.type, id: p.oid })));
      for (const p of others) {
        const target = genericTarget(via, p.type);
        if (target) want(target, p.oid);
      }
    }
  }
  data.peers.set(key(model, field), { linked: new Set(mine.keys()), peers });
}
