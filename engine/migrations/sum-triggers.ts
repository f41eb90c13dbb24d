import type { Registry } from '../definitions/registry-types';
import type { RoutineSpec } from './snapshot-types';
import { quoteIdent as q, sqlName } from './identifiers';
import { sumRoutes, type SumRoute } from '../writes/summed-children';

const INT4_MAX = 2147483647;

/**
 * A `sum_of` field kept by PostgreSQL: after any statement that inserts, changes or deletes the summed
 * rows (whichever write path, a cascade included), the objects they pointed to, before and after, are
 * locked in id order and given their new total, null when no row is left (NetBox's post_save and
 * post_delete signals on a virtual disk). The lock comes first and the total is read by the next
 * statement, which sees every write committed while this one waited.
 */
function sumTriggers(route: SumRoute): RoutineSpec {
  const parent = q(route.parent.table);
  const child = q(route.child.table);
  const via = q(route.via);
  const col = q(route.column);
  const fn = q(sqlName('patchbay_sum', route.parent.table, route.column));
  const total = `(SELECT sum("c".${q(route.summed)}) FROM ${child} AS "c" WHERE "c".${via} = "p"."id")`;
  // The sum of integers is a bigint: a total past the kept column's bound is refused on the summed rows'
  // field (a 400 naming it, see db-errors.ts) rather than failing the column's cast.
  const max = Number(route.parent.fields.get(route.field)?.def.max ?? INT4_MAX);
  const trigger = (suffix: string) => q(sqlName(route.child.table, 'sum', route.column, suffix));
  const create = [
    `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  ids bigint[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(DISTINCT ${via}) INTO ids FROM "patchbay_new";
  ELSIF TG_OP = 'UPDATE' THEN
    SELECT array_agg(DISTINCT "x") INTO ids FROM (SELECT ${via} AS "x" FROM "patchbay_new" UNION SELECT ${via} FROM "patchbay_old") AS "s";
  ELSE
    SELECT array_agg(DISTINCT ${via}) INTO ids FROM "patchbay_old";
  END IF;
  PERFORM 1 FROM ${parent} WHERE "id" = ANY(ids) ORDER BY "id" FOR UPDATE;
  IF EXISTS (SELECT 1 FROM ${parent} AS "p" WHERE "p"."id" = ANY(ids) AND ${total} > ${max}) THEN
    RAISE EXCEPTION USING ERRCODE = 'numeric_value_out_of_range', TABLE = '${route.child.table}', COLUMN = '${route.summed}',
      MESSAGE = 'the total of ${route.summed} would exceed ${max}';
  END IF;
  UPDATE ${parent} AS "p" SET ${col} = ${total} WHERE "p"."id" = ANY(ids) AND "p".${col} IS DISTINCT FROM ${total};
  RETURN NULL;
END
$$`,
    `CREATE TRIGGER ${trigger('ins')} AFTER INSERT ON ${child} REFERENCING NEW TABLE AS "patchbay_new" FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
    `CREATE TRIGGER ${trigger('upd')} AFTER UPDATE ON ${child} REFERENCING OLD TABLE AS "patchbay_old" NEW TABLE AS "patchbay_new" FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
    `CREATE TRIGGER ${trigger('del')} AFTER DELETE ON ${child} REFERENCING OLD TABLE AS "patchbay_old" FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
  ];
  const drop = [...['ins', 'upd', 'del'].map((s) => `DROP TRIGGER IF EXISTS ${trigger(s)} ON ${child}`), `DROP FUNCTION ${fn}()`];
  return { create, drop, serves: route.child.table };
}

/** The triggers of every `sum_of`, by function name. */
export function sumRoutines(registry: Registry): Record<string, RoutineSpec> {
  return Object.fromEntries(sumRoutes(registry).map((r) => [sqlName('patchbay_sum', r.parent.table, r.column), sumTriggers(r)]));
}
