import type { FkField, Registry, ResolvedModel } from '../definitions/registry-types';
import { column, ident, sql } from '../sql/fragment';
import { runRows } from '../database/run';
import type { Db } from '../database/db';


/**
 * A rule a definition names for a relation field, checked inside the write's transaction after the
 * row is written (so it sees the object as it will be). Returns the error message, or null.
 *
 * The rows a validator judges are read FOR SHARE: a concurrent change of them (the IP moved to another
 * device's interface) is waited for and judged as it leaves them, and cannot start until this write
 * commits, so nothing changes between the verdict and the commit.
 */
export type FieldValidator = (db: Db, registry: Registry, model: ResolvedModel, id: number, field: FkField, value: number) => Promise<string | null>;

/** Locks the related object (FOR SHARE) and reads its address (its first inet/cidr field, if any). */
async function lockAndAddress(db: Db, target: ResolvedModel, id: number): Promise<{ text: string; family: number } | null> {
  const f = target.fieldList.find((x) => x.kind === 'inet' || x.kind === 'cidr');
  const read = f?.column ? sql`text(${ident(f.column)}) AS "a", family(${ident(f.column)}) AS "f"` : sql`NULL::text AS "a", NULL::int AS "f"`;
  const [row] = await runRows<{ a: string | null; f: number | null }>(db, sql`SELECT ${read} FROM ${ident(target.table)} WHERE "id" = ${id}::bigint FOR SHARE`);
  return row?.a != null && row.f != null ? { text: row.a, family: row.f } : null;
}

/**
 * The related object must be attached, through its generic relation, to something that belongs to
 * this object — a device's primary IP must sit on one of the device's own interfaces.
 */
const assignedToSelf: FieldValidator = async (db, registry, model, id, field, value) => {
  const target = field.target;
  const generic = target.fieldList.find((f) => f.kind === 'generic_fk');
  if (!generic) return null;
  // The related object first, alone: the join below then reads its assignment as committed and locked.
  const addr = await lockAndAddress(db, target, value);
  const holders = generic.genericTargets.flatMap((m) =>
    m.fieldList.filter((f): f is FkField => f.kind === 'fk' && f.target === model).map((fk) => ({ holder: m, fk })),
  );
  for (const { holder, fk } of holders) {
    const rows = await runRows(db, sql`SELECT 1 FROM ${ident(target.table)} AS "x" JOIN ${ident(holder.table)} AS "h" ON ${column('x', generic.typeColumn)} = ${holder.label}::text AND ${column('x', generic.idColumn)} = "h"."id"
        WHERE "x"."id" = ${value}::bigint AND ${column('h', fk.column)} = ${id}::bigint FOR SHARE OF "h"`);
    if (rows.length) return null;
  }
  return `The specified IP address (${addr?.text ?? value}) is not assigned to this ${model.verboseName}.`;
};

function familyIs(family: 4 | 6): FieldValidator {
  return async (db, _registry, _model, _id, field, value) => {
    const addr = await lockAndAddress(db, field.target, value);
    return addr && addr.family !== family ? `${addr.text} is not an IPv${family} address.` : null;
  };
}

const VALIDATORS: Record<string, FieldValidator> = {
  assigned_to_self: assignedToSelf,
  ipv4: familyIs(4),
  ipv6: familyIs(6),
};

export function hasValidator(name: string): boolean {
  return Object.prototype.hasOwnProperty.call(VALIDATORS, name);
}

/** Runs the validators of every written relation field that has some; returns field errors. */
export async function runFieldValidators(db: Db, registry: Registry, model: ResolvedModel, id: number, columns: Record<string, unknown>): Promise<Record<string, string[]>> {
  const errors: Record<string, string[]> = {};
  for (const field of model.fieldList) {
    const names = field.def.validators;
    if (field.kind !== 'fk' || !names?.length || !(field.column in columns)) continue;
    const value = columns[field.column];
    if (typeof value !== 'number') continue;
    for (const name of names) {
      const message = await VALIDATORS[name]!(db, registry, model, id, field, value);
      if (message) (errors[field.name] ??= []).push(message);
    }
  }
  return errors;
}
