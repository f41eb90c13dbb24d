import type { Registry, ResolvedField, ResolvedModel } from '../../definitions/registry-types';
import type { RoutineSpec } from '../../migrations/snapshot-types';
import { quoteIdent as q, sqlLiteral, sqlName } from '../../migrations/identifiers';
import { sqlTypeOf } from '../../migrations/column-types';

/**
 * The occupancy of an address field (the word `"occupancy": {"within": [...]}` on an inet field): for each
 * combination of the `within` fields' values, how many distinct host addresses each aligned block of
 * BLOCK_SIZE addresses holds (IPv4 /24, IPv6 /120). A free-space search then reads one row per block and
 * looks at the addresses of the blocks that are not full only, instead of reading every address in use:
 * a /16 with 50,000 addresses used is some 200 summary rows and the few hundred addresses of its last block.
 *
 * The counts are kept by the database: statement-level triggers on the table recount, for every block a
 * statement touched, the distinct hosts in it, after a transaction-scoped advisory lock on the block and in
 * a statement of its own (a fresh snapshot under READ COMMITTED). A writer that takes hosts out of a block
 * (a delete, an address or scope moved away) holds that lock alone, so it counts what every earlier writer
 * committed; writers that only add hosts share it, and each may count without the others' rows. So a
 * stored count never exceeds the truth (a block called full is full), a block with any host has a row
 * (every writer counts its own rows), and a count left short by a race only makes the search read that
 * block's addresses, until the next write to it counts again.
 */

/** Host addresses per block. */
export const BLOCK_SIZE = 256;
const BLOCK_MASK = { v4: 24, v6: 120 };

export interface Occupancy {
  /** The summary table. */
  table: string;
  /** The model's table and the address column. */
  of: ResolvedModel;
  column: string;
  /** The `within` fields (their columns have the same names in the summary table). */
  within: ResolvedField[];
}

/** The address of a value without its mask (/32 or /128): the host it names. Immutable, so it can be indexed. */
export function hostExpr(value: string): string {
  return `set_masklen(${value}, CASE WHEN family(${value}) = 4 THEN 32 ELSE 128 END)`;
}

/** The first host of the block an address lies in (whatever its mask), as a host address. */
export function blockExpr(value: string): string {
  return `set_masklen(network(set_masklen(${value}, CASE WHEN family(${value}) = 4 THEN ${BLOCK_MASK.v4} ELSE ${BLOCK_MASK.v6} END)), CASE WHEN family(${value}) = 4 THEN 32 ELSE 128 END)`;
}

export function occupancyOf(model: ResolvedModel, field: ResolvedField): Occupancy | null {
  const o = field.def.occupancy;
  if (!o || !field.column) return null;
  return {
    table: sqlName(model.table, field.column, 'occupancy'),
    of: model,
    column: field.column,
    within: (o.within ?? []).map((n) => model.fields.get(n)!),
  };
}

export function occupancies(registry: Registry): Occupancy[] {
  const out: Occupancy[] = [];
  for (const model of registry.models.values()) {
    for (const field of model.fieldList) {
      const o = occupancyOf(model, field);
      if (o) out.push(o);
    }
  }
  return out.sort((a, b) => a.table.localeCompare(b.table));
}

function routine(o: Occupancy): RoutineSpec {
  const base = q(o.of.table);
  const occ = q(o.table);
  const col = (alias: string) => `${q(alias)}.${q(o.column)}`;
  const within = o.within.map((f) => q(f.column!));
  const host = (alias: string) => hostExpr(col(alias));
  const fn = q(sqlName('patchbay_occupancy', o.table));
  const sameWithin = (a: string, b: string) => o.within.map((f) => ` AND ${q(a)}.${q(f.column!)} IS NOT DISTINCT FROM ${q(b)}.${q(f.column!)}`).join('');
  // The blocks a set of rows (alias "r") lies in, with their within values, and whether the statement may
  // have taken hosts out of them (deleted, or moved away) rather than only put hosts in.
  const blocksOf = (from: string, shrinks: boolean, where?: string) =>
    `SELECT ${[...within.map((w) => `"r".${w}`), `${blockExpr(col('r'))} AS "block"`, `${shrinks ? 'TRUE' : 'FALSE'} AS "shrinks"`].join(', ')} FROM ${from} WHERE ${col('r')} IS NOT NULL${where ? ` AND ${where}` : ''}`;
  const changed = `(${[col('r'), ...within.map((w) => `"r".${w}`)].join(', ')}) IS DISTINCT FROM (${[col('n'), ...within.map((w) => `"n".${w}`)].join(', ')})`;
  const touched = {
    INSERT: blocksOf('"patchbay_new" AS "r"', false),
    DELETE: blocksOf('"patchbay_old" AS "r"', true),
    UPDATE: `${blocksOf('"patchbay_old" AS "r" JOIN "patchbay_new" AS "n" ON "n"."id" = "r"."id"', true, changed)}
      UNION ${blocksOf('"patchbay_new" AS "r" JOIN "patchbay_old" AS "n" ON "n"."id" = "r"."id"', false, changed)}`,
  };
  const keyParts = [sqlLiteral(`occupancy ${o.table}`), ...within.map((w) => `coalesce("t".${w}::text, '')`), 'host("t"."block")'];
  const lockKey = `hashtextextended(concat_ws('|', ${keyParts.join(', ')}), 0)`;
  const blockCols = [...within.map((w) => `"t".${w}`), '"t"."block"'];
  // The blocks touched, once each, and whether the statement may have taken hosts out of any of them.
  const touchedBlocks = (blocks: string) => `SELECT ${blockCols.join(', ')}, bool_or("t"."shrinks") AS "shrinks" FROM (${blocks}) AS "t" GROUP BY ${blockCols.join(', ')}`;
  const count = `CROSS JOIN LATERAL (SELECT count(DISTINCT ${host('c')})::int AS "n" FROM ${base} AS "c"
        WHERE ${host('c')} BETWEEN "t"."block" AND "t"."block" + ${BLOCK_SIZE - 1}${sameWithin('c', 't')}) AS "x"`;
  const summaryColumns = [...within, '"block"', '"hosts"'].join(', ');
  const sameBlock = (a: string) => `${q(a)}."block" = "t"."block"${sameWithin(a, 't')}`;
  // A block that may have lost hosts is recounted, its row waited for: the count must not stay above the truth.
  const exact = (blocks: string) => `INSERT INTO ${occ} (${summaryColumns})
      SELECT ${[...blockCols, '"x"."n"'].join(', ')} FROM (${touchedBlocks(blocks)}) AS "t" ${count} WHERE "t"."shrinks"
      ON CONFLICT (${[...within, '"block"'].join(', ')}) DO UPDATE SET "hosts" = EXCLUDED."hosts";
    DELETE FROM ${occ} AS "o" USING (${touchedBlocks(blocks)}) AS "t" WHERE "t"."shrinks" AND "o"."hosts" = 0 AND ${sameBlock('o')};`;
  // A block that only gained hosts is recounted only when no other writer holds its row (SKIP LOCKED): the
  // one that does counts it, and a count left short is allowed (see above). So concurrent creates in one
  // block do not queue on its row until each commits. A block with no row yet gets one, counted.
  const grown = (blocks: string) => `UPDATE ${occ} AS "o" SET "hosts" = "x"."n"
      FROM (SELECT ${blockCols.join(', ')} FROM (${touchedBlocks(blocks)}) AS "t" JOIN ${occ} AS "l" ON ${sameBlock('l')}
        WHERE NOT "t"."shrinks" FOR UPDATE OF "l" SKIP LOCKED) AS "t" ${count}
      WHERE ${sameBlock('o')};
    INSERT INTO ${occ} (${summaryColumns})
      SELECT ${[...blockCols, '"x"."n"'].join(', ')} FROM (${touchedBlocks(blocks)}) AS "t" ${count}
      WHERE NOT "t"."shrinks" AND NOT EXISTS (SELECT 1 FROM ${occ} AS "e" WHERE ${sameBlock('e')})
      ON CONFLICT (${[...within, '"block"'].join(', ')}) DO NOTHING;`;
  const lock = (blocks: string) => `PERFORM count(CASE WHEN "s"."shrinks" THEN pg_advisory_xact_lock("s"."k") ELSE pg_advisory_xact_lock_shared("s"."k") END)
      FROM (SELECT ${lockKey} AS "k", bool_or("t"."shrinks") AS "shrinks" FROM (${blocks}) AS "t" GROUP BY 1 ORDER BY 1) AS "s";`;
  // Writers that only add hosts to a block share its lock: each recounts without the others' rows, so the
  // count may fall short (the block is then read address by address: slower, still right) but never
  // overstates it. A writer that takes hosts out holds the lock alone and recounts after every other has
  // committed: a count that included a host it deleted could call a block full that is not. Keys are taken
  // in one order whatever their mode, so two writers cannot wait on each other crosswise. An INSERT only
  // adds hosts and a DELETE only takes them out; an UPDATE may do both.
  const recount = (blocks: string, kinds: { grows: boolean; shrinks: boolean }) => [
    lock(blocks),
    ...(kinds.shrinks ? [exact(blocks)] : []),
    ...(kinds.grows ? [grown(blocks)] : []),
  ].join('\n    ');
  const index = q(sqlName(o.of.table, o.column, 'host'));
  const trigger = (suffix: string) => q(sqlName(o.table, suffix));
  const columns = [...o.within.map((f) => `${q(f.column!)} ${sqlTypeOf(f)}`), '"block" inet NOT NULL', '"hosts" integer NOT NULL'];
  return {
    serves: o.of.table,
    create: [
      // Host order, which the btree on the column itself is not (it sorts by network first): the recount
      // and the free-space search read a block's addresses through it.
      `CREATE INDEX ${index} ON ${base} ((${hostExpr(q(o.column))}))`,
      `CREATE TABLE ${occ} (${columns.join(', ')})`,
      `CREATE UNIQUE INDEX ${q(sqlName(o.table, 'block'))} ON ${occ} (${['"block"', ...within].join(', ')}) NULLS NOT DISTINCT`,
      `INSERT INTO ${occ} (${[...within, '"block"', '"hosts"'].join(', ')})
  SELECT ${[...within.map((w) => `"r".${w}`), blockExpr(col('r')), `count(DISTINCT ${host('r')})::int`].join(', ')} FROM ${base} AS "r"
  WHERE ${col('r')} IS NOT NULL GROUP BY ${o.within.map((_, i) => String(i + 1)).concat(String(o.within.length + 1)).join(', ')}`,
      // FROM CURRENT: the summary table of the schema this was migrated in, whatever the session's search_path.
      `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    ${recount(touched.INSERT, { grows: true, shrinks: false })}
  ELSIF TG_OP = 'UPDATE' THEN
    ${recount(touched.UPDATE, { grows: true, shrinks: true })}
  ELSE
    ${recount(touched.DELETE, { grows: false, shrinks: true })}
  END IF;
  RETURN NULL;
END
$$`,
      `CREATE TRIGGER ${trigger('ins')} AFTER INSERT ON ${base} REFERENCING NEW TABLE AS "patchbay_new" FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
      `CREATE TRIGGER ${trigger('upd')} AFTER UPDATE ON ${base} REFERENCING OLD TABLE AS "patchbay_old" NEW TABLE AS "patchbay_new" FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
      `CREATE TRIGGER ${trigger('del')} AFTER DELETE ON ${base} REFERENCING OLD TABLE AS "patchbay_old" FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
    ],
    drop: [
      `DROP TRIGGER IF EXISTS ${trigger('ins')} ON ${base}`,
      `DROP TRIGGER IF EXISTS ${trigger('upd')} ON ${base}`,
      `DROP TRIGGER IF EXISTS ${trigger('del')} ON ${base}`,
      `DROP FUNCTION ${fn}()`,
      `DROP TABLE ${occ}`,
      `DROP INDEX IF EXISTS ${index}`,
    ],
  };
}

/** The occupancy routines by name: one per address field with the word. */
export function occupancyRoutines(registry: Registry): Record<string, RoutineSpec> {
  return Object.fromEntries(occupancies(registry).map((o) => [sqlName('patchbay_occupancy', o.table), routine(o)]));
}
