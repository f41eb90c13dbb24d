import type { ResolvedField, ResolvedModel } from '../definitions/registry-types';
import { and, column, ident, sql, type Sql } from '../sql/fragment';
import { runRows } from '../database/run';
import { castValue } from '../sql/casts';
import { ISO_DATE, ISO_DATETIME, withinCalendar } from './calendar';
import { normalizeCidr, normalizeInet, normalizeMac } from './ip-values';
import type { Db } from '../database/db';
import { naturalKey } from '../definitions/natural-key';

export type Lookup = { ok: true; id: number } | { ok: false; message: string };

/** A written id: an integer or a string of digits, within the range ids can have. */
export function parsePk(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

function pyRepr(attrs: Record<string, unknown>): string {
  return `{${Object.entries(attrs).map(([k, v]) => `'${k}': ${typeof v === 'string' ? `'${v}'` : JSON.stringify(v)}`).join(', ')}}`;
}

/**
 * Conditions on a model's table (alias given) matching the attributes: scalar fields by value, a
 * foreign key by id or by a nested object of attributes (a subquery), so {"site": {"slug": "dc1"}} works.
 */
export function attributeConditions(model: ResolvedModel, attrs: Record<string, unknown>, alias: string, depth = 0): Sql[] | string {
  if (depth > 5) return 'Attributes are nested too deeply.';
  const out: Sql[] = [];
  for (const [key, value] of Object.entries(attrs)) {
    if (key === 'id') {
      const pk = parsePk(value);
      if (pk === null) return `Invalid id: ${JSON.stringify(value)}`;
      out.push(sql`${column(alias, 'id')} = ${pk}::bigint`);
      continue;
    }
    const f = model.fields.get(key);
    if (!f || (!f.column && f.kind !== 'fk') || f.writeOnly) return `Unknown attribute "${key}" of ${model.verboseName}.`;
    if (f.kind === 'fk' && f.target) {
      const col = column(alias, f.column);
      if (value === null) {
        out.push(sql`${col} IS NULL`);
      } else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        const innerAlias = `r${depth + 1}`;
        const inner = attributeConditions(f.target, value as Record<string, unknown>, innerAlias, depth + 1);
        if (typeof inner === 'string') return inner;
        out.push(sql`${col} IN (SELECT ${column(innerAlias, 'id')} FROM ${ident(f.target.table)} AS ${ident(innerAlias)} WHERE ${and(inner)})`);
      } else {
        const pk = parsePk(value);
        if (pk === null) return `Invalid ${key}: ${JSON.stringify(value)}`;
        out.push(sql`${col} = ${pk}::bigint`);
      }
      continue;
    }
    const col = column(alias, f.column);
    if (value === null) {
      out.push(sql`${col} IS NULL`);
      continue;
    }
    if (typeof value === 'object') return `Invalid value for attribute "${key}".`;
    let v: unknown = value;
    if (f.kind === 'inet' || f.kind === 'cidr' || f.kind === 'mac') {
      const n = f.kind === 'inet' ? normalizeInet(String(value)) : f.kind === 'cidr' ? normalizeCidr(String(value)) : normalizeMac(String(value));
      if (!n.ok) return n.message;
      v = n.value;
      out.push(sql`${col} = ${castValue(v, f.kind === 'mac' ? 'macaddr' : f.kind)}`);
      continue;
    }
    if (['integer', 'positive_integer'].includes(f.kind) && !Number.isSafeInteger(Number(value))) return `Invalid value for attribute "${key}".`;
    if (f.kind === 'boolean' && typeof value !== 'boolean') return `Invalid value for attribute "${key}".`;
    if (!comparable(f, value)) return `Invalid value for attribute "${key}".`;
    out.push(sql`${col} = ${castValue(v, null)}`);
  }
  return out;
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const DECIMAL = /^-?\d{1,30}(\.\d{1,30})?$/;

/**
 * Whether a scalar can be compared with the field's column at all: a value the column type cannot hold
 * (text for a number or a date, anything for a JSON or array column) would be a database error, not "no match".
 */
function comparable(f: ResolvedField, value: unknown): boolean {
  if (f.array || f.kind === 'json' || f.kind === 'custom_fields') return false;
  switch (f.kind) {
    case 'integer':
    case 'positive_integer': {
      const n = Number(value);
      return n >= (f.def.min ?? INT32_MIN) && n <= (f.def.max ?? INT32_MAX);
    }
    case 'decimal':
    case 'float':
      return typeof value === 'number' ? Number.isFinite(value) : typeof value === 'string' && DECIMAL.test(value);
    case 'date':
      return typeof value === 'string' && ISO_DATE.test(value) && withinCalendar(value);
    case 'datetime':
      return typeof value === 'string' && ISO_DATETIME.test(value) && withinCalendar(value);
    case 'choice':
      return !f.choices?.numeric || (Number.isSafeInteger(Number(value)) && Number(value) >= INT32_MIN && Number(value) <= INT32_MAX);
    default:
      return true;
  }
}

/** Finds the one object a written relation value (id or attributes) designates. */
export async function resolveRelated(db: Db, target: ResolvedModel, value: unknown): Promise<Lookup> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const attrs = value as Record<string, unknown>;
    const conds = attributeConditions(target, attrs, 't');
    if (typeof conds === 'string') return { ok: false, message: conds };
    const rows = await runRows<{ id: number }>(db, sql`SELECT "t"."id" FROM ${ident(target.table)} AS "t" WHERE ${and(conds)} LIMIT 2`);
    if (rows.length === 0) return { ok: false, message: `Related object not found using the provided attributes: ${pyRepr(attrs)}` };
    if (rows.length > 1) return { ok: false, message: `Multiple objects match the provided attributes: ${pyRepr(attrs)}` };
    return { ok: true, id: rows[0]!.id };
  }
  const pk = parsePk(value);
  if (pk === null) return { ok: false, message: `Invalid pk "${String(value)}" - object does not exist.` };
  return { ok: true, id: pk };
}

/**
 * Whether the ids all exist in the model's table; returns the missing ones.
 *
 * The rows found are locked (FOR KEY SHARE, in id order) until the write's transaction ends: a generic
 * relation or a children field names them without a foreign key, so this lock is what keeps them from
 * being deleted between the check and the commit. A delete locks what it deletes FOR UPDATE first, so
 * either it waits for this write (and then finds and follows the new reference) or this check waits
 * for the delete and finds the row gone.
 */
export async function missingIds(db: Db, model: ResolvedModel, ids: number[]): Promise<number[]> {
  if (!ids.length) return [];
  const rows = await runRows<{ id: number }>(db, sql`SELECT "id" FROM ${ident(model.table)} WHERE "id" = ANY(${ids}) ORDER BY "id" FOR KEY SHARE`);
  const found = new Set(rows.map((r) => r.id));
  return ids.filter((id) => !found.has(id));
}

/**
 * The ids of the objects named by their natural keys (a many-to-many field written by key, NetBox's
 * SlugRelatedField), or DRF's message for the first key that names none. One query for the whole list.
 */
export async function resolveByKey(db: Db, target: ResolvedModel, keys: string[]): Promise<{ ok: true; ids: number[] } | { ok: false; message: string }> {
  const key = naturalKey(target);
  if (!key) throw new Error(`${target.label} has no natural key`);
  if (!keys.length) return { ok: true, ids: [] };
  const rows = await runRows<{ id: number; key: string }>(db, sql`SELECT "id", ${column('t', key.column)}::text AS "key" FROM ${ident(target.table)} AS "t" WHERE ${column('t', key.column)}::text = ANY(${keys})`);
  const byKey = new Map(rows.map((r) => [r.key, r.id]));
  const ids: number[] = [];
  for (const k of keys) {
    const id = byKey.get(k);
    if (id === undefined) return { ok: false, message: `Object with ${key.name}=${k} does not exist.` };
    ids.push(id);
  }
  return { ok: true, ids };
}
