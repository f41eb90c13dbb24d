import type { RoutineSpec } from './snapshot-types';

/**
 * NetBox's deepmerge (objects merge key by key, recursively; anything else is replaced), for config
 * context: read statements merge every matching context in one expression, which SQL's `||` cannot do
 * (it replaces nested objects whole). The aggregate folds the contexts in the ORDER BY it is given.
 * Written in PL/pgSQL, which PostgreSQL and PGlite both ship.
 */
const DEEP_MERGE: RoutineSpec = {
  create: [
    `CREATE FUNCTION patchbay_jsonb_deep_merge(base jsonb, over jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  k text;
  v jsonb;
  merged jsonb := CASE WHEN jsonb_typeof(base) = 'object' THEN base ELSE '{}'::jsonb END;
BEGIN
  IF over IS NULL OR jsonb_typeof(over) <> 'object' THEN
    RETURN merged;
  END IF;
  FOR k, v IN SELECT key, value FROM jsonb_each(over) LOOP
    IF jsonb_typeof(v) = 'object' AND jsonb_typeof(merged -> k) = 'object' THEN
      merged := merged || jsonb_build_object(k, patchbay_jsonb_deep_merge(merged -> k, v));
    ELSE
      merged := merged || jsonb_build_object(k, v);
    END IF;
  END LOOP;
  RETURN merged;
END
$$`,
    `CREATE AGGREGATE patchbay_jsonb_deep_merge_agg(jsonb) (SFUNC = patchbay_jsonb_deep_merge, STYPE = jsonb, INITCOND = '{}')`,
  ],
  drop: ['DROP AGGREGATE patchbay_jsonb_deep_merge_agg(jsonb)', 'DROP FUNCTION patchbay_jsonb_deep_merge(jsonb, jsonb)'],
};

/** The routines every database gets, whatever the definitions: the engine's statements call them. */
export function engineRoutines(): Record<string, RoutineSpec> {
  return { patchbay_jsonb_deep_merge: DEEP_MERGE };
}
