import type { FkField, GenericField, LinkField, ResolvedField, ResolvedModel } from '../definitions/registry-types';
import { column, ident, join, sql, type Sql } from '../sql/fragment';

/**
 * One step of a declared filter path, from the rows of one model to the rows of another:
 * - fk: the foreign key's target (site.region);
 * - generic: a generic relation narrowed to one type (assigned_object[dcim.interface]);
 * - rows: the rows of another model whose fk points back at the object: those a `children` field
 *   lists, with its `where` (a_terminations: the cable's A-end terminations), or those of a reverse
 *   relation named by the fk's related_name (terminations: a circuit's terminations). An object may
 *   have several: a path through them matches when any of them does.
 * - link: the objects a many-to-many field links to (a VRF's import_targets), or back, by the field's
 *   related_name, the objects linking to this one (a route target's importing_vrfs); several per object.
 * - generic_rows: the rows of another model whose generic relation points at the object, by the
 *   relation's related_name (a site's contacts: its contact assignments), optionally only those whose
 *   fields hold given values (changes(action=create)); several per object.
 */
export type Hop =
  | { kind: 'fk'; field: FkField; target: ResolvedModel }
  | { kind: 'generic'; field: GenericField; target: ResolvedModel; typeLabel: string }
  | { kind: 'rows'; via: FkField; where: Record<string, string | number | boolean>; target: ResolvedModel }
  | { kind: 'link'; link: LinkField; back: boolean; target: ResolvedModel }
  | { kind: 'generic_rows'; via: GenericField; typeLabel: string; where: StepCondition[]; target: ResolvedModel };

/** A condition a step puts on the rows it reaches: `column` holds one of `values` (bound as text). */
export interface StepCondition {
  column: string;
  values: string[];
}

/** A declared path resolved against the registry: the hops to the model holding the final field. */
export interface FilterPath {
  hops: Hop[];
  /** The final field, on the last hop's target (or the list's own model). */
  field: ResolvedField;
  /** The final step is itself a generic relation narrowed to a type: the filter is about that relation. */
  narrowed?: Extract<Hop, { kind: 'generic' }>;
  /** The path ends on a many-to-many field followed back: its final hop reaches the linking objects themselves (field is that m2m). */
  linkedBack: boolean;
  /**
   * The last step names a reverse relation (devices' interfaces): the holders are the rows pointing back,
   * and `field` is their foreign key; only is_set ("some row points here") has a meaning on it.
   */
  reverseEnd: boolean;
  /** A children hop on the way: several rows per object, so the path has no single value. */
  multiValued: boolean;
  /** The alias `wrap` gives the holder of the final field ("t" when the path has no hops). */
  holder: string;
  /**
   * The condition `inner` puts on the holder of the final field (given the holder's alias), reached
   * from the list's row "t" by nested semi-joins (each indexable).
   */
  wrap(inner: (alias: string) => Sql): Sql;
  /** `alias.column` of the final field's holder, behind the narrowed relation's type check when there is one. */
  guarded(alias: string, column: string, cond: (col: Sql) => Sql): Sql;
  /**
   * The final field's value read along the path as nested scalar subqueries (NULL when a hop is unset);
   * single-valued paths only. `locked`: each row read on the way is locked FOR SHARE (a check's reads,
   * so the rows it judged cannot change before the write commits; a pending change is waited for).
   */
  value(column: string, locked?: boolean): Sql;
}

/** A narrowed generic hop's type check on its holder; the label (from the registry) is bound. */
const typeGuard = (hop: Extract<Hop, { kind: 'generic' }>, alias: string): Sql => sql`${column(alias, hop.field.typeColumn)} = ${hop.typeLabel}::text`;

/** `outer` row's link into `inner` rows for one hop, with the inner condition `cond`. */
function semiJoin(hop: Hop, outer: string, inner: string, cond: Sql): Sql {
  const from = sql`${ident(hop.target.table)} AS ${ident(inner)}`;
  if (hop.kind === 'link') {
    // Through the join table: forward from source_id to target_id, backward the other way.
    const [mine, theirs] = hop.back ? ['target_id', 'source_id'] : ['source_id', 'target_id'];
    return sql`${column(outer, 'id')} IN (SELECT ${column('j', mine)} FROM ${ident(hop.link.joinTable)} AS "j" WHERE ${column('j', theirs)} IN (SELECT ${column(inner, 'id')} FROM ${from} WHERE ${cond}))`;
  }
  if (hop.kind === 'generic_rows') {
    // The rows pointing here: their type column names the object's type, their id column its id.
    const where = hop.where.map((w) => sql`${column(inner, w.column)}::text = ANY(${w.values}::text[]) AND `);
    return sql`${column(outer, 'id')} IN (SELECT ${column(inner, hop.via.idColumn)} FROM ${from} WHERE ${column(inner, hop.via.typeColumn)} = ${hop.typeLabel}::text AND ${join(where, '')}(${cond}))`;
  }
  if (hop.kind === 'rows') {
    const where = Object.entries(hop.where).map(([col, v]) => sql`${column(inner, col)} = ${v} AND `);
    return sql`${column(outer, 'id')} IN (SELECT ${column(inner, hop.via.column)} FROM ${from} WHERE ${join(where, '')}(${cond}))`;
  }
  const col = hop.kind === 'fk' ? hop.field.column : hop.field.idColumn;
  const guard = hop.kind === 'generic' ? sql`${typeGuard(hop, outer)} AND ` : sql``;
  return sql`${guard}${column(outer, col)} IN (SELECT ${column(inner, 'id')} FROM ${from} WHERE ${cond})`;
}

/** The hop a field makes when a path goes on past it, or why it cannot. */
function hopOf(field: ResolvedField, typeLabel: string | undefined): Hop | string {
  if (typeLabel) {
    const target = field.kind === 'generic_fk' ? field.genericTargets.find((t) => t.label === typeLabel) : undefined;
    return field.kind === 'generic_fk' && target ? { kind: 'generic', field, target, typeLabel } : `${field.name} cannot hold ${typeLabel}`;
  }
  if (field.kind === 'fk') return { kind: 'fk', field, target: field.target };
  if (field.kind === 'm2m') return { kind: 'link', link: field, back: false, target: field.target };
  if (field.kind === 'children') return { kind: 'rows', via: field.children.via, where: field.children.where, target: field.children.model };
  // A related field lists the rows pointing here (an FHRP group's ip_addresses): a path goes through them as through its relation followed back.
  if (field.kind === 'related' && !field.relatedRows.pick) {
    const via = field.countOf.via;
    if (via.kind === 'generic_fk') {
      const where = Object.entries(field.relatedRows.where).map(([col, v]) => ({ column: col, values: [String(v)] }));
      return { kind: 'generic_rows', via, typeLabel: field.model.label, where, target: field.countOf.model };
    }
    if (via.kind === 'fk') return { kind: 'rows', via, where: field.relatedRows.where, target: field.countOf.model };
  }
  return `${field.name} is not a relation a path can follow (a foreign key, a many-to-many, children or related field, or a generic relation narrowed with [app.model])`;
}

/**
 * Resolves a dotted path: site.region, assigned_object[dcim.interface].device,
 * a_terminations.termination[dcim.interface].device. Throws with the reason when it does not resolve.
 */
export function resolvePath(model: ResolvedModel, path: string): FilterPath {
  // Dots inside a [type] belong to the type label, not to the path.
  const parts = path.match(/[^.[\]]+(?:\[[^\]]*\])?/g) ?? [];
  if (parts.join('.') !== path) throw new Error(`bad path ${path}`);
  const hops: Hop[] = [];
  let current = model;
  let narrowed: Extract<Hop, { kind: 'generic' }> | undefined;
  let field: ResolvedField | undefined;
  let linkedBack = false;
  let reverseEnd = false;
  parts.forEach((part, i) => {
    const m = /^([a-z_][a-z0-9_]*)(?:\[([a-z0-9_]+\.[a-z0-9_]+)\])?(?:\(([^()]+)\))?$/.exec(part);
    if (!m) throw new Error(`bad path step "${part}" in ${path}`);
    const isLast = i === parts.length - 1;
    field = current.fields.get(m[1]!);
    // A generic relation of another model followed back by its related_name: the rows pointing here.
    const backGeneric = field || m[2] ? undefined : current.reverseGenerics.find((f) => f.def.related_name === m[1]);
    if (backGeneric) {
      if (isLast) throw new Error(`${m[1]} reaches the ${backGeneric.model.label} rows pointing at ${current.label}: name one of their fields after it (path ${path})`);
      hops.push({ kind: 'generic_rows', via: backGeneric, typeLabel: current.label, where: m[3] ? stepConditions(backGeneric.model, m[3], path) : [], target: backGeneric.model });
      current = backGeneric.model;
      return;
    }
    if (m[3]) throw new Error(`a condition (${m[3]}) may follow only a generic relation of another model followed back by its related_name (path ${path})`);
    const back = field || m[2] ? undefined : current.reverse.find((f) => f.def.related_name === m[1]);
    if (back) {
      hops.push({ kind: 'rows', via: back, where: {}, target: back.model });
      current = back.model;
      if (isLast) {
        // The rows themselves: their key back to this row is set exactly when such a row exists.
        field = back;
        reverseEnd = true;
      }
      return;
    }
    // A many-to-many field of another model, followed back by its related_name; as the last step, the
    // linking objects themselves (a route target's importing_vrf_id).
    const backLink = field || m[2] ? undefined : current.reverseLinks.find((f) => f.def.related_name === m[1]);
    if (backLink) {
      hops.push({ kind: 'link', link: backLink, back: true, target: backLink.model });
      current = backLink.model;
      if (isLast) {
        field = backLink;
        linkedBack = true;
      }
      return;
    }
    // `id` as the last step: the id of the object reached (virtual_chassis_member_id: the members' ids).
    if (!field && isLast && m[1] === 'id' && !m[2]) field = idField(current);
    if (!field) throw new Error(`${current.label} has no field ${m[1]} (path ${path})`);
    if (isLast && !m[2]) return;
    const hop = hopOf(field, m[2]);
    if (typeof hop === 'string') throw new Error(`${hop} (path ${path})`);
    if (isLast) narrowed = hop as Extract<Hop, { kind: 'generic' }>;
    else {
      hops.push(hop);
      current = hop.target;
    }
  });
  if (!field) throw new Error(`empty path`);
  const final = field;
  const multiValued = hops.some((h) => h.kind === 'rows' || h.kind === 'link' || h.kind === 'generic_rows');
  return {
    hops,
    field: final,
    narrowed,
    linkedBack,
    reverseEnd,
    multiValued,
    holder: hops.length ? `p${hops.length}` : 't',
    guarded(alias, name, cond) {
      const c = cond(column(alias, name));
      return narrowed ? sql`${typeGuard(narrowed, alias)} AND (${c})` : c;
    },
    wrap(inner) {
      const aliasAt = (i: number) => (i === 0 ? 't' : `p${i}`);
      let expr = inner(aliasAt(hops.length));
      for (let i = hops.length - 1; i >= 0; i--) expr = semiJoin(hops[i]!, aliasAt(i), aliasAt(i + 1), expr);
      return expr;
    },
    value(name, locked = false) {
      if (multiValued) throw new Error(`path ${path} has several values per object`);
      // Innermost first: the column on the holder, then outwards hop by hop as scalar subqueries.
      const read = (hop: Hop | undefined, alias: string, col: string): Sql =>
        hop?.kind === 'generic' ? sql`(CASE WHEN ${typeGuard(hop, alias)} THEN ${column(alias, col)} END)` : column(alias, col);
      const linkCol = (hop: Hop) => (hop.kind === 'fk' ? hop.field.column : hop.kind === 'generic' ? hop.field.idColumn : 'id');
      if (hops.some((h) => h.kind === 'link')) throw new Error(`path ${path} has several values per object`);
      if (!hops.length) return read(narrowed, 't', name);
      let expr = read(hops[0], 't', linkCol(hops[0]!));
      hops.forEach((hop, i) => {
        const next = hops[i + 1];
        const alias = `v${i}`;
        const col = next ? read(next, alias, linkCol(next)) : read(narrowed, alias, name);
        expr = sql`(SELECT ${col} FROM ${ident(hop.target.table)} AS ${ident(alias)} WHERE ${column(alias, 'id')} = ${expr}${locked ? sql` FOR SHARE` : sql``})`;
      });
      return expr;
    },
  };
}

/**
 * `field=value|value,field=value` after a step followed back: each field a stored text or choice field of
 * the rows reached, each value one it may hold (a choice is checked against its set), so a typo is a
 * fault at startup rather than a filter that silently matches nothing.
 */
function stepConditions(rows: ResolvedModel, text: string, path: string): StepCondition[] {
  return text.split(',').map((part) => {
    const m = /^([a-z_][a-z0-9_]*)=([A-Za-z0-9_-]+(?:\|[A-Za-z0-9_-]+)*)$/.exec(part.trim());
    if (!m) throw new Error(`bad condition "${part}" in ${path}: write field=value or field=value|value`);
    const f = rows.fields.get(m[1]!);
    const values = m[2]!.split('|');
    if (!f || !f.column || !['choice', 'string', 'slug', 'text'].includes(f.kind)) throw new Error(`${m[1]} is not a text or choice field of ${rows.label} (path ${path})`);
    if (f.kind === 'choice') {
      const bad = values.find((v) => !f.choices.labels.has(f.choices.numeric && /^-?\d+$/.test(v) ? Number(v) : v));
      if (bad !== undefined) throw new Error(`${bad} is not a choice of ${rows.label}.${m[1]} (path ${path})`);
    }
    return { column: f.column, values };
  });
}

/** The id every row has, as a stored integer field of its model, for a path ending on it. */
function idField(model: ResolvedModel): ResolvedField {
  return { name: 'id', def: { type: 'integer' }, label: 'ID', model, nullable: false, required: true, readOnly: true, writeOnly: false, array: false, kind: 'integer', column: 'id' };
}
