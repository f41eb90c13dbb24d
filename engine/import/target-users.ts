import type { ResolvedModel } from '../definitions/registry-types';
import type { Db, DbTransaction } from '../database/db';
import { runRows } from '../database/run';
import { ident, join, sql } from '../sql/fragment';
import type { SourceObject } from './source-api';

/**
 * (Users, and tokens the same way by their key.) The users a target already has (the superuser `createsuperuser` made, so someone can log in while the
 * import runs) meet the source's users. A target user with a source user's username is that user: it
 * takes the source's id (its tokens and memberships follow) and is then updated like any imported object,
 * keeping its password. A target user holding an id a differently named source user has is moved to an
 * id past every source id, so the source's user gets its own id without taking over another's account.
 */

/** A value fit for a report: a token's key is never printed whole. */
const shown = (v: string) => (/^[0-9a-f]{40}$/i.test(v) ? `${v.slice(0, 4)}…` : v);

export interface UserMoves {
  /** Target users moved, as "username: old id -> new id". */
  moved: string[];
}

/** The field a target's row is known by across systems: the type's unique text field (a username, a token's key). */
function matchField(model: ResolvedModel): { name: string; column: string } {
  const f = model.fieldList.find((x) => x.def.unique && x.column && (x.kind === 'string' || x.kind === 'slug'));
  if (!f?.column) throw new Error(`${model.label} has no unique text field to match the target's rows by`);
  return { name: f.name, column: f.column };
}

/** Moves one row of `model` to a new id, and every reference to it: foreign keys and many-to-many links. */
async function moveRow(trx: DbTransaction, model: ResolvedModel, from: number, to: number, nameColumn: string, name: string): Promise<void> {
  const t = ident(model.table);
  const cols = (await runRows<{ c: string }>(trx, sql`SELECT "column_name" AS "c" FROM information_schema.columns WHERE "table_schema" = current_schema() AND "table_name" = ${model.table} AND "column_name" <> 'id' ORDER BY "ordinal_position"`)).map((r) => r.c);
  const names = join(cols.map((c) => ident(c)));
  // The copy holds a stand-in of the same length for the unique value until the original row is gone.
  const values = join(cols.map((c) => (c === nameColumn ? sql`left(md5(random()::text) || md5(random()::text) || repeat('x', 200), length(${ident(c)}))` : ident(c))));
  await runRows(trx, sql`INSERT INTO ${t} ("id", ${names}) SELECT ${to}::bigint, ${values} FROM ${t} WHERE "id" = ${from}::bigint`);
  for (const fk of model.reverse) {
    if (fk.column) await runRows(trx, sql`UPDATE ${ident(fk.model.table)} SET ${ident(fk.column)} = ${to}::bigint WHERE ${ident(fk.column)} = ${from}::bigint`);
  }
  for (const f of model.fieldList) {
    if (f.kind === 'm2m' || f.kind === 'tags') await runRows(trx, sql`UPDATE ${ident(f.joinTable)} SET "source_id" = ${to}::bigint WHERE "source_id" = ${from}::bigint`);
  }
  for (const link of model.reverseLinks) await runRows(trx, sql`UPDATE ${ident(link.joinTable)} SET "target_id" = ${to}::bigint WHERE "target_id" = ${from}::bigint`);
  await runRows(trx, sql`DELETE FROM ${t} WHERE "id" = ${from}::bigint`);
  await runRows(trx, sql`UPDATE ${t} SET ${ident(nameColumn)} = ${name} WHERE "id" = ${to}::bigint`);
}

/**
 * `usedIds`: every id of the type the source has used, its objects' and those its change log names (a
 * deleted user's history must not come to name the target's own administrator): a target row neither
 * matched nor past them moves past them.
 */
export async function matchTargetRows(db: Db, model: ResolvedModel, source: readonly SourceObject[], usedIds: ReadonlySet<number>): Promise<UserMoves> {
  const { name: nameField, column: nameColumn } = matchField(model);
  const byName = new Map(source.filter((u) => typeof u[nameField] === 'string').map((u) => [u[nameField] as string, u.id]));
  const sourceIds = new Set(source.map((u) => u.id));
  const moved: string[] = [];
  await db.transaction(async (trx) => {
    await runRows(trx, sql`SELECT set_config('patchbay.importing', 'on', true) IS NOT NULL AS "set"`);
    const rows = await runRows<{ id: string | number; name: string }>(trx, sql`SELECT "id", ${ident(nameColumn)} AS "name" FROM ${ident(model.table)} ORDER BY "id" FOR UPDATE`);
    const floor = Math.max(0, ...sourceIds, ...usedIds);
    let next = Math.max(floor, ...rows.map((r) => Number(r.id))) + 1;
    const taken = new Map(rows.map((r) => [Number(r.id), r.name]));
    // Where each target user is now: a user moved out of the way is met again later under its old id.
    const at = new Map(rows.map((r) => [r.name, Number(r.id)]));
    for (const r of rows) {
      const id = at.get(r.name)!;
      const want = byName.get(r.name);
      if (want === id) continue;
      if (want === undefined && id > floor) continue;
      // Out of the way first: an id a source user with another name will take.
      if (want === undefined) {
        await moveRow(trx, model, id, next, nameColumn, r.name);
        moved.push(`${model.label} ${shown(r.name)}: ${id} -> ${next}`);
        taken.delete(id);
        at.set(r.name, next);
        taken.set(next++, r.name);
        continue;
      }
      const occupant = taken.get(want);
      if (occupant !== undefined) {
        await moveRow(trx, model, want, next, nameColumn, occupant);
        moved.push(`${model.label} ${shown(occupant)}: ${want} -> ${next}`);
        at.set(occupant, next);
        taken.set(next++, occupant);
      }
      await moveRow(trx, model, id, want, nameColumn, r.name);
      moved.push(`${model.label} ${shown(r.name)}: ${id} -> ${want}`);
      taken.delete(id);
      at.set(r.name, want);
      taken.set(want, r.name);
    }
    // Ids handed out here must not be handed out again by the sequence.
    await runRows(trx, sql`SELECT setval(pg_get_serial_sequence(${model.table}, 'id'), greatest((SELECT max("id") FROM ${ident(model.table)}), 1))`);
  });
  return { moved };
}
