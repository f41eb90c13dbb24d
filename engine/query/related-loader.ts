import type { Knex } from 'knex';
import type { Registry, ResolvedField, ResolvedModel } from '../definitions/registry-types';
import { quoteIdent } from '../storage/identifiers';
import { rowSelectList, type Row } from './row-columns';
import { genericTarget } from '../definitions/resolve-registry';
import { renderConfigContexts } from './config-context-loader';
import { loadChildren, loadPeers, loadReverse, type GenericRef } from './link-loader';
import { treeWalk } from './tree-walk';

export type Form = 'full' | 'brief';

/** Everything a page of objects refers to, loaded with one query per related model and level. */
export class RelatedData {
  /** model label -> id -> row */
  readonly rows = new Map<string, Map<number, Row>>();
  /** join table -> source id -> target ids, in the target's order */
  readonly links = new Map<string, Map<number, number[]>>();
  /** count field (model.field) -> id -> count */
  readonly counts = new Map<string, Map<number, number>>();
  /** model label -> id -> depth in its tree */
  readonly depths = new Map<string, Map<number, number>>();
  /** rendered field (model.field) -> id -> value, e.g. config_context */
  readonly rendered = new Map<string, Map<number, unknown>>();
  /** children field (model.field) -> parent id -> attached objects */
  readonly children = new Map<string, Map<number, GenericRef[]>>();
  /** reverse_generic field (model.field) -> id -> the row pointing at it */
  readonly reverse = new Map<string, Map<number, Row>>();
  /** rows pointing at objects, shared by the fields that read them */
  readonly reverseRows = new Map<string, { asked: Set<number>; rows: Map<number, Row> }>();
  /** related field with `shows` (model.field) -> id -> the row, rendered with the fields it shows */
  readonly shown = new Map<string, Map<number, Row>>();
  /** link_peers field (model.field) -> which objects are linked, and their peers */
  readonly peers = new Map<string, { linked: Set<number>; peers: Map<number, GenericRef[]> }>();

  row(model: ResolvedModel, id: number): Row | undefined {
    return this.rows.get(model.label)?.get(id);
  }
}

/** Which fields of a model a form shows. */
export function fieldsOfForm(model: ResolvedModel, form: Form): ResolvedField[] {
  if (form === 'full') return model.fieldList.filter((f) => !f.writeOnly);
  return model.brief.map((n) => model.fields.get(n)).filter((f): f is ResolvedField => !!f);
}

function showsDepth(model: ResolvedModel, form: Form): boolean {
  return model.tree && (form === 'full' || model.brief.includes('_depth'));
}

interface Pending {
  model: ResolvedModel;
  ids: Set<number>;
}

/**
 * Loads what the given rows' representation embeds: nested objects (level by level, so a nested
 * object's own nested objects come in the next round), tags and other many-to-many links, counts
 * and tree depths. The number of queries depends on the definitions, never on the number of rows.
 */
export async function loadRelated(
  db: Knex | Knex.Transaction,
  registry: Registry,
  model: ResolvedModel,
  rows: Row[],
  form: Form,
  omit: ReadonlySet<string> = new Set(),
): Promise<RelatedData> {
  const data = new RelatedData();
  let level: Array<{ model: ResolvedModel; rows: Row[]; form: Form }> = [{ model, rows, form }];
  while (level.length) {
    const pending = new Map<string, Pending>();
    const want = (m: ResolvedModel, id: unknown) => {
      if (typeof id !== 'number') return;
      if (data.row(m, id)) return;
      let p = pending.get(m.label);
      if (!p) pending.set(m.label, (p = { model: m, ids: new Set() }));
      p.ids.add(id);
    };
    for (const group of level) {
      if (!group.rows.length) continue;
      const ids = group.rows.map((r) => r.id);
      for (const shown of fieldsOfForm(group.model, group.form)) {
        if (omit.has(shown.name) && group.model === model) continue;
        // An alias loads what the field it repeats needs (and its fallback's, shown with the rest of the form).
        const field = shown.aliasOf ?? shown;
        if (shown.aliasOr?.kind === 'fk' && shown.aliasOr.target) for (const r of group.rows) want(shown.aliasOr.target, r[shown.aliasOr.column!]);
        if (field.kind === 'fk' && field.target) {
          for (const r of group.rows) want(field.target, r[field.column!]);
        } else if (field.kind === 'generic_fk') {
          for (const r of group.rows) {
            const target = genericTarget(field, r[field.typeColumn!]);
            if (target) want(target, r[field.idColumn!]);
          }
        } else if ((field.kind === 'tags' || field.kind === 'm2m') && field.target && field.joinTable) {
          await loadLinks(db, data, field, ids, want);
        } else if (field.kind === 'net_count' && field.netCount) {
          await loadNetCounts(db, data, field, ids);
        } else if (field.kind === 'count' && field.countAcross) {
          await loadCountsAcross(db, data, field, ids);
        } else if (field.kind === 'count' && field.countOf) {
          await loadCounts(db, data, field, ids);
        } else if (field.kind === 'related' && field.countOf) {
          await loadRelatedList(db, data, field, ids, want);
        } else if (field.kind === 'children') {
          await loadChildren(db, registry, data, group.model, field, ids, want);
        } else if (field.kind === 'reverse_generic') {
          await loadReverse(db, data, group.model, field, ids, want);
        } else if (field.kind === 'link_peers') {
          await loadPeers(db, registry, data, group.model, field, ids, want);
        } else if (field.kind === 'config_context') {
          data.rendered.set(`${group.model.label}.${field.name}`, await renderConfigContexts(db, registry, group.model, field, group.rows));
        }
      }
      if (showsDepth(group.model, group.form)) await loadDepths(db, data, group.model, ids);
    }
    const next: typeof level = [];
    for (const p of pending.values()) {
      const list = [...p.ids];
      const result = await db.raw(
        `SELECT ${rowSelectList(p.model, 't')} FROM ${quoteIdent(p.model.table)} AS "t" WHERE "t"."id" = ANY(?)`,
        [list],
      );
      const loaded = result.rows as Row[];
      let byId = data.rows.get(p.model.label);
      if (!byId) data.rows.set(p.model.label, (byId = new Map()));
      for (const r of loaded) byId.set(r.id, r);
      next.push({ model: p.model, rows: loaded, form: 'brief' });
    }
    level = next;
  }
  return data;
}

async function loadLinks(
  db: Knex | Knex.Transaction,
  data: RelatedData,
  field: ResolvedField,
  ids: number[],
  want: (m: ResolvedModel, id: unknown) => void,
): Promise<void> {
  const target = field.target!;
  const order = target.ordering.map((o) => {
    const f = target.fields.get(o.field);
    const col = f?.column ?? o.field;
    return `"o".${quoteIdent(col)}${o.descending ? ' DESC' : ''}`;
  });
  const result = await db.raw(
    `SELECT "j"."source_id", "o"."id" FROM ${quoteIdent(field.joinTable!)} AS "j" JOIN ${quoteIdent(target.table)} AS "o" ON "o"."id" = "j"."target_id" WHERE "j"."source_id" = ANY(?) ORDER BY ${[...order, '"o"."id"'].join(', ')}`,
    [ids],
  );
  let map = data.links.get(field.joinTable!);
  if (!map) data.links.set(field.joinTable!, (map = new Map()));
  for (const r of result.rows as Array<{ source_id: number; id: number }>) {
    let list = map.get(r.source_id);
    if (!list) map.set(r.source_id, (list = []));
    list.push(r.id);
    want(target, r.id);
  }
}

async function loadCounts(db: Knex | Knex.Transaction, data: RelatedData, field: ResolvedField, ids: number[]): Promise<void> {
  const { model, via } = field.countOf!;
  const key = `${field.model.label}.${field.name}`;
  let map = data.counts.get(key);
  if (!map) data.counts.set(key, (map = new Map()));
  if (via.kind === 'generic_fk') {
    // Through a generic relation: rows whose type names this model and whose id is one of these.
    const idCol = quoteIdent(via.idColumn!);
    const r = await db.raw(
      `SELECT ${idCol} AS "k", count(*)::int AS "n" FROM ${quoteIdent(model.table)} WHERE ${quoteIdent(via.typeColumn!)} = ? AND ${idCol} = ANY(?) GROUP BY ${idCol}`,
      [field.model.label, ids],
    );
    for (const x of r.rows as Array<{ k: number; n: number }>) map.set(x.k, x.n);
    return;
  }
  if (field.model.tree && via.kind === 'fk' && via.target === field.model && via.name !== 'parent') {
    // On a tree, rows attached to a descendant count too (a region's sites include its child regions'), as NetBox's cumulative counts.
    const result = await db.raw(
      `WITH RECURSIVE ${treeWalk('d', field.model.table, '"id" = ANY(?)', 'down')}
       SELECT d."origin" AS "k", count(*)::int AS "n" FROM d JOIN ${quoteIdent(model.table)} x ON x.${quoteIdent(via.column!)} = d."id" GROUP BY d."origin"`,
      [ids],
    );
    for (const r of result.rows as Array<{ k: number; n: number }>) map.set(r.k, r.n);
    return;
  }
  // Through a many-to-many field the join table holds the links; through a foreign key, the rows do.
  const table = quoteIdent(via.joinTable ?? model.table);
  const col = via.joinTable ? '"target_id"' : quoteIdent(via.column!);
  const result = await db.raw(
    `SELECT ${col} AS "k", count(*)::int AS "n" FROM ${table} WHERE ${col} = ANY(?) GROUP BY ${col}`,
    [ids],
  );
  for (const r of result.rows as Array<{ k: number; n: number }>) map.set(r.k, r.n);
}

/**
 * Networks of the same model inside each object's network (children) or around it (depth), among rows
 * sharing the `same` fields (NULL with NULL): NetBox's prefix children and _depth. One statement; the
 * network column's gist index serves the containment.
 */
async function loadNetCounts(db: Knex | Knex.Transaction, data: RelatedData, field: ResolvedField, ids: number[]): Promise<void> {
  const { net, same, direction } = field.netCount!;
  const table = quoteIdent(field.model.table);
  const col = quoteIdent(net.column!);
  const op = direction === 'children' ? `o.${col} << t.${col}` : `o.${col} >> t.${col}`;
  const shared = same.map((f) => ` AND o.${quoteIdent(f.column!)} IS NOT DISTINCT FROM t.${quoteIdent(f.column!)}`).join('');
  const result = await db.raw(`SELECT t."id" AS "k", count(*)::int AS "n" FROM ${table} t JOIN ${table} o ON ${op}${shared} WHERE t."id" = ANY(?) GROUP BY t."id"`, [ids]);
  const map = new Map<number, number>();
  for (const r of result.rows as Array<{ k: number; n: number }>) map.set(r.k, r.n);
  data.counts.set(`${field.model.label}.${field.name}`, map);
}

/** A count across every model's links here (a tag's tagged_items): one statement over all the join tables. */
async function loadCountsAcross(db: Knex | Knex.Transaction, data: RelatedData, field: ResolvedField, ids: number[]): Promise<void> {
  const links = field.countAcross!;
  const union = links.map((l) => `SELECT "target_id" FROM ${quoteIdent(l.joinTable!)} WHERE "target_id" = ANY(?)`).join(' UNION ALL ');
  const result = await db.raw(`SELECT "target_id" AS "k", count(*)::int AS "n" FROM (${union}) AS "u" GROUP BY "target_id"`, links.map(() => ids));
  const map = new Map<number, number>();
  for (const r of result.rows as Array<{ k: number; n: number }>) map.set(r.k, r.n);
  data.counts.set(`${field.model.label}.${field.name}`, map);
}

async function loadDepths(db: Knex | Knex.Transaction, data: RelatedData, model: ResolvedModel, ids: number[]): Promise<void> {
  const result = await db.raw(
    `WITH RECURSIVE ${treeWalk('up', model.table, '"id" = ANY(?)', 'up')}
     SELECT "origin" AS "k", max("depth")::int AS "n" FROM up GROUP BY "origin"`,
    [ids],
  );
  let map = data.depths.get(model.label);
  if (!map) data.depths.set(model.label, (map = new Map()));
  for (const r of result.rows as Array<{ k: number; n: number }>) map.set(r.k, r.n);
}

/** related: the ids of the rows whose foreign key points at each object (NAT outside addresses), in id order. */
async function loadRelatedList(db: Knex | Knex.Transaction, data: RelatedData, field: ResolvedField, ids: number[], want: (m: ResolvedModel, id: unknown) => void): Promise<void> {
  const { model, via } = field.countOf!;
  const { where, shows } = field.relatedRows ?? { where: {} };
  const col = quoteIdent(via.column!);
  const fixed = Object.entries(where);
  const conditions = [`"r".${col} = ANY(?)`, ...fixed.map(([c]) => `"r".${quoteIdent(c)} = ?`)];
  // With `shows`, the rows themselves are rendered here: read them whole and ask for what their fks name.
  const select = shows ? `"r".${col} AS "__k", ${rowSelectList(model, 'r')}` : `"r".${col} AS "__k", "r"."id"`;
  const result = await db.raw(`SELECT ${select} FROM ${quoteIdent(model.table)} AS "r" WHERE ${conditions.join(' AND ')} ORDER BY "r"."id"`, [ids, ...fixed.map(([, v]) => v)]);
  const map = new Map<number, number[]>();
  const key = `${field.model.label}.${field.name}`;
  const shown = new Map<number, Row>();
  for (const r of result.rows as Array<Row & { __k: number }>) {
    map.set(r.__k, [...(map.get(r.__k) ?? []), r.id]);
    if (!shows) {
      want(model, r.id);
      continue;
    }
    const { __k: _k, ...row } = r;
    shown.set(r.id, row as Row);
    for (const f of shows) if (f.kind === 'fk' && f.target) want(f.target, row[f.column!]);
  }
  data.links.set(key, map);
  if (shows) data.shown.set(key, shown);
}
