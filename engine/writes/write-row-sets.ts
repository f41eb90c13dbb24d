import type { ResolvedModel } from '../definitions/registry-types';
import { ident, join, sql, type Sql } from '../sql/fragment';
import { runRows } from '../database/run';
import type { Db } from '../database/db';

type Columns = Record<string, unknown>;

/**
 * Many objects' rows written by one statement each (issue 14: a bulk write is set-based). The rows travel
 * as one JSON document read by json_populate_recordset with the table's own row type, so every value
 * reaches its column through the column's type, bound as a single parameter however many rows there are.
 */

const jsonColumnsOf = new WeakMap<ResolvedModel, ReadonlySet<string>>();

/** Columns whose prepared value is JSON text (json and custom_fields kinds). */
function jsonColumns(model: ResolvedModel): ReadonlySet<string> {
  let set = jsonColumnsOf.get(model);
  if (!set) {
    set = new Set(model.fieldList.filter((f) => (f.kind === 'json' || f.kind === 'custom_fields') && f.column).map((f) => f.column as string));
    jsonColumnsOf.set(model, set);
  }
  return set;
}

/**
 * Whether these prepared columns can travel in the JSON document unchanged in meaning. A JSON column
 * holding the JSON value null would arrive as SQL NULL there; such a row is written on its own. SQL NULL
 * itself (an empty local_context_data) travels as it is.
 */
export function fitsRowSet(model: ResolvedModel, columns: Columns): boolean {
  const json = jsonColumns(model);
  return Object.entries(columns).every(([c, v]) => !json.has(c) || v === null || (typeof v === 'string' && v !== 'null'));
}

/** The row as the JSON document carries it: JSON columns as their document, not its text. */
export function documentRow(model: ResolvedModel, columns: Columns, id?: number): Columns {
  const json = jsonColumns(model);
  const out: Columns = id === undefined ? {} : { id };
  for (const [c, v] of Object.entries(columns)) out[c] = json.has(c) && typeof v === 'string' ? (JSON.parse(v) as unknown) : v;
  return out;
}

function recordset(model: ResolvedModel, rows: Columns[]): Sql {
  return sql`json_populate_recordset(NULL::${ident(model.table)}, ${JSON.stringify(rows)}::json)`;
}

/** One row (a documentRow) typed by the table's own row type, as a FROM item. */
export function jsonRecord(model: ResolvedModel, row: Columns): Sql {
  return sql`json_populate_record(NULL::${ident(model.table)}, ${JSON.stringify(row)}::json)`;
}

/**
 * The SET list of an UPDATE of the row "t" from the values row "v": merged for JSON columns in
 * `mergeColumns`, and last_updated moved on; empty when no column is written (the row is left as it is).
 */
export function assignments(model: ResolvedModel, names: readonly string[], mergeColumns: ReadonlySet<string>): Sql[] {
  if (!names.length) return [];
  const sets = names.map((n) => (mergeColumns.has(n) ? sql`${ident(n)} = "t".${ident(n)} || "v".${ident(n)}` : sql`${ident(n)} = "v".${ident(n)}`));
  if (model.lastUpdated) sets.push(sql`"last_updated" = now()`);
  return sets;
}

/** Inserts rows that all set the same columns (at least one); their new ids, in the order given. */
export async function insertRowSet(db: Db, model: ResolvedModel, names: readonly string[], rows: readonly Columns[]): Promise<number[]> {
  const cols = join(names.map((n) => ident(n)));
  const values = join(names.map((n) => sql`"v".${ident(n)}`));
  // Rows are inserted, and returned, in the order the SELECT gives them.
  const statement = sql`INSERT INTO ${ident(model.table)} (${cols})
    SELECT ${values} FROM ${recordset(model, rows.map((r) => documentRow(model, r)))} WITH ORDINALITY AS "v" ORDER BY "v"."ordinality"
    RETURNING "id"`;
  return (await runRows<{ id: number | string }>(db, statement)).map((r) => Number(r.id));
}

/**
 * Updates rows that all set the same columns; a JSON column in `mergeColumns` gets the keys written
 * merged into the stored object (custom fields), as updateRow does one row at a time.
 */
export async function updateRowSet(
  db: Db,
  model: ResolvedModel,
  names: readonly string[],
  rows: ReadonlyArray<{ id: number; columns: Columns }>,
  mergeColumns: ReadonlySet<string>,
): Promise<void> {
  const sets = assignments(model, names, mergeColumns);
  if (!sets.length) return;
  await runRows(db, sql`UPDATE ${ident(model.table)} AS "t" SET ${join(sets)}
    FROM ${recordset(model, rows.map((r) => documentRow(model, r.columns, r.id)))} AS "v" WHERE "t"."id" = "v"."id"`);
}
