import type { ResolvedModel } from '../definitions/registry-types';
import type { DbTransaction } from '../database/db';
import { runRows } from '../database/run';
import { ident, join, sql } from '../sql/fragment';
import type { SourceObject } from './source-api';
import { writtenValue } from './write-body';
import { markImporting } from './write-objects';

/**
 * Rows of a read-only type (the change log): nobody writes them through the API, so they are stored as
 * the source shows them, column by column, never rewritten once there. A foreign key naming something
 * the target lacks (a user the import refused) is stored empty, as NetBox keeps a change whose user is gone.
 */

export function storedColumns(model: ResolvedModel, o: SourceObject): Record<string, unknown> {
  const out: Record<string, unknown> = { id: o.id };
  for (const f of model.fieldList) {
    if (f.kind === 'generic_fk') {
      if (f.typeColumn in o) out[f.typeColumn] = o[f.typeColumn];
      if (f.idColumn in o) out[f.idColumn] = o[f.idColumn];
      continue;
    }
    if (!f.column || !(f.name in o)) continue;
    out[f.column] = writtenValue(f, o[f.name]);
  }
  if (model.timestamps !== false && 'created' in o) out.created = o.created;
  if (model.lastUpdated && 'last_updated' in o) out.last_updated = o.last_updated;
  return out;
}

/** Stores rows not yet in the target; returns the ids stored. */
export async function insertStoredRows(trx: DbTransaction, model: ResolvedModel, rows: ReadonlyArray<Record<string, unknown>>): Promise<number[]> {
  if (!rows.length) return [];
  await markImporting(trx);
  const names = [...new Set(rows.flatMap((r) => Object.keys(r)))].sort();
  const fkTargets = new Map(model.fieldList.flatMap((f) => (f.kind === 'fk' ? [[f.column, f.target] as const] : [])));
  const values = names.map((n) => {
    const target = fkTargets.get(n);
    return target ? sql`(SELECT "x"."id" FROM ${ident(target.table)} AS "x" WHERE "x"."id" = "v".${ident(n)})` : sql`"v".${ident(n)}`;
  });
  const inserted = await runRows<{ id: string | number }>(
    trx,
    sql`INSERT INTO ${ident(model.table)} (${join(names.map((n) => ident(n)))})
      SELECT ${join(values)} FROM json_populate_recordset(NULL::${ident(model.table)}, ${JSON.stringify(rows)}::json) AS "v"
      ON CONFLICT ("id") DO NOTHING RETURNING "id"`,
  );
  return inserted.map((r) => Number(r.id));
}
