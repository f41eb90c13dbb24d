import { sumRoutines } from './sum-triggers';
import type { Registry, ResolvedModel } from '../definitions/registry-types';
import type { RoutineSpec } from './snapshot-types';
import { quoteIdent as q } from './identifiers';
import { changeLogRoutines } from './change-log-triggers';
import { occupancyRoutines } from '../domain/allocation/occupancy';
import { REPLICA_TABLES } from './replica-tables';
import { IDEMPOTENCY_KEY_ROUTINE, IDEMPOTENCY_KEY_TABLE } from '../idempotency/key-table';

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

/** The one-row table whose version every change to who may do what moves on (engine/auth/credential-cache.ts). */
export const AUTH_VERSION_TABLE = 'patchbay_auth_version';

/** Columns whose change alone says nothing about who may do what: a token's or a user's last use. */
const BOOKKEEPING_COLUMNS = ['last_used', 'last_login', 'last_updated'];

/**
 * The models that decide who may do what (users, their groups, tokens, permissions) and the join tables of
 * their many-to-many fields, by table name.
 */
function authTables(registry: Registry): string[] {
  const models: ResolvedModel[] = [];
  for (const role of ['user', 'token', 'permission'] as const) {
    const m = registry.roles.get(role);
    if (m) models.push(m);
  }
  const group = registry.roles.get('permission')?.fields.get('groups')?.target;
  if (group) models.push(group);
  const tables = new Set<string>();
  for (const m of models) {
    tables.add(m.table);
    for (const f of m.fieldList) if (f.joinTable) tables.add(f.joinTable);
  }
  return [...tables].sort();
}

/**
 * Credentials are cached by each server process and checked, inside the statement of every read they
 * authorise, against this version; a trigger on every table that decides who may do what moves it on in
 * the transaction that changes them, so the very next read on any instance sees the change and
 * authenticates again. Changes to bookkeeping columns alone (a token's last use) leave it be.
 */
function authVersion(registry: Registry): RoutineSpec | null {
  const tables = authTables(registry);
  if (!tables.length) return null;
  const v = q(AUTH_VERSION_TABLE);
  const ignored = BOOKKEEPING_COLUMNS.map((c) => ` - '${c}'`).join('');
  const create = [
    `CREATE TABLE ${v} ("version" bigint NOT NULL)`,
    `INSERT INTO ${v} ("version") VALUES (1)`,
    // FROM CURRENT: the trigger finds the version table of the schema it was migrated in, whatever the
    // search_path of the session whose write fires it.
    `CREATE FUNCTION patchbay_bump_auth_version() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  UPDATE ${v} SET "version" = "version" + 1;
  RETURN NULL;
END
$$`,
  ];
  const drop: string[] = [];
  for (const table of tables) {
    const t = q(table);
    const trigger = (suffix: string) => q(`${table}_auth_version_${suffix}`);
    create.push(
      `CREATE TRIGGER ${trigger('ins_del')} AFTER INSERT OR DELETE ON ${t} FOR EACH ROW EXECUTE FUNCTION patchbay_bump_auth_version()`,
      `CREATE TRIGGER ${trigger('upd')} AFTER UPDATE ON ${t} FOR EACH ROW WHEN ((to_jsonb(OLD)${ignored}) IS DISTINCT FROM (to_jsonb(NEW)${ignored})) EXECUTE FUNCTION patchbay_bump_auth_version()`,
      `CREATE TRIGGER ${trigger('trunc')} AFTER TRUNCATE ON ${t} FOR EACH STATEMENT EXECUTE FUNCTION patchbay_bump_auth_version()`,
    );
    drop.push(
      `DROP TRIGGER IF EXISTS ${trigger('ins_del')} ON ${t}`,
      `DROP TRIGGER IF EXISTS ${trigger('upd')} ON ${t}`,
      `DROP TRIGGER IF EXISTS ${trigger('trunc')} ON ${t}`,
    );
  }
  drop.push('DROP FUNCTION patchbay_bump_auth_version()', `DROP TABLE ${v}`);
  return { create, drop };
}

/**
 * What the engine's statements need besides the definitions' tables: the deep merge for config context,
 * the auth version that cached credentials are checked against, the change log's triggers, the
 * occupancy counts of address fields, the sums `sum_of` keeps, the read replicas' heartbeat and write leases,
 * and the Idempotency-Keys of writes.
 */
export function engineRoutines(registry: Registry): Record<string, RoutineSpec> {
  const out: Record<string, RoutineSpec> = {
    patchbay_jsonb_deep_merge: DEEP_MERGE,
    patchbay_replica_tables: REPLICA_TABLES,
    [IDEMPOTENCY_KEY_TABLE]: IDEMPOTENCY_KEY_ROUTINE,
  };
  const auth = authVersion(registry);
  if (auth) out.patchbay_auth_version = auth;
  return { ...out, ...changeLogRoutines(registry), ...occupancyRoutines(registry), ...sumRoutines(registry) };
}
