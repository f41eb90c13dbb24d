import type { GenericField, LinkField, Registry, ResolvedModel } from '../definitions/registry-types';
import type { RoutineSpec } from './snapshot-types';
import { quoteIdent as q, sqlLiteral, sqlName } from './identifiers';
import { inlineSql } from './inline-sql';
import { JsonCompiler, type CompileOptions } from '../reads/object-json';
import { STORED_SNAPSHOT } from '../reads/reader-access';
import { isConcealed } from '../definitions/concealed-fields';
import { storedValue } from '../reads/stored-values';

/** Stored data is built without secrets or shown_with fields; it is read under the rule of its own object (view_through). */
const snapshotCompile: CompileOptions = { revealSecrets: false, revealShown: false, view: STORED_SNAPSHOT.view };

/**
 * The change log is written by the database: every change-logged table gets statement-level AFTER
 * INSERT/UPDATE/DELETE triggers with transition tables, each doing ONE set-based INSERT into the log
 * for all the rows its statement touched. So a bulk PATCH of 100 objects is one log statement, and
 * what the database does by itself (cascaded deletes, set null) or what any other code writes is
 * logged in the same transaction, with no code path to forget.
 *
 * Who asked comes from transaction-local settings the write path sets (engine/writes/change-context.ts):
 * patchbay.user_id, patchbay.user_name and patchbay.request_id (the response's X-Request-ID). A write
 * without them (a command, SQL typed by hand) is logged with no user and a request id of its own.
 *
 * Many-to-many and tag changes (rows of the join tables) are logged as NetBox logs m2m_changed: the
 * parent's change row of the same transaction gets the new postchange_data; a parent with none (its
 * tag deleted) gets an update row.
 */

/**
 * The shared function reading the request's context; a transaction without one is given a request id.
 * Every log and event statement joins it, so a transaction that sets patchbay.importing (engine/import:
 * another system's objects and history brought over) gets no row from it and logs and raises nothing.
 */
const CONTEXT: RoutineSpec = {
  create: [
    `CREATE FUNCTION patchbay_change_context(OUT user_id bigint, OUT user_name text, OUT request_id text) RETURNS SETOF record ROWS 1 LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('patchbay.importing', true) = 'on' THEN
    RETURN;
  END IF;
  user_id := nullif(current_setting('patchbay.user_id', true), '')::bigint;
  user_name := coalesce(current_setting('patchbay.user_name', true), '');
  request_id := nullif(current_setting('patchbay.request_id', true), '');
  IF request_id IS NULL THEN
    request_id := gen_random_uuid()::text;
    PERFORM set_config('patchbay.request_id', request_id, true);
  END IF;
  RETURN NEXT;
END
$$`,
  ],
  drop: ['DROP FUNCTION patchbay_change_context()'],
};

/** jsonb_build_object takes at most 100 arguments: a wide row is built in pieces and concatenated. */
function jsonObject(entries: Array<[string, string]>): string {
  if (!entries.length) return `'{}'::jsonb`;
  const pieces: string[] = [];
  for (let i = 0; i < entries.length; i += 40) {
    pieces.push(`jsonb_build_object(${entries.slice(i, i + 40).map(([k, v]) => `${sqlLiteral(k)}, ${v}`).join(', ')})`);
  }
  return pieces.join(' || ');
}

/**
 * NetBox's serialize_object for the row aliased `a`: every stored field by name (a foreign key as the
 * id, a many-to-many field as the sorted ids, a generic relation as its type and id), created and
 * last_updated, custom_fields, and tags by name. Secrets and passwords are left out.
 */
export function serializeRow(model: ResolvedModel, a: string): string {
  const entries: Array<[string, string]> = [];
  const tagTable = (f: LinkField) => q(f.target.table);
  for (const f of model.fieldList) {
    if (isConcealed(f) || f.kind === 'password' || f.writeOnly) continue;
    if (f.kind === 'generic_fk') {
      entries.push([f.typeColumn, `to_jsonb(${q(a)}.${q(f.typeColumn)})`], [f.idColumn, `to_jsonb(${q(a)}.${q(f.idColumn)})`]);
    } else if (f.kind === 'custom_fields') {
      entries.push(['custom_fields', `coalesce(${q(a)}.${q(f.column)}, '{}'::jsonb)`]);
    } else if (f.kind === 'tags') {
      entries.push([f.name, `(SELECT coalesce(jsonb_agg("tg"."name" ORDER BY "tg"."name"), '[]'::jsonb) FROM ${q(f.joinTable)} AS "j" JOIN ${tagTable(f)} AS "tg" ON "tg"."id" = "j"."target_id" WHERE "j"."source_id" = ${q(a)}."id")`]);
    } else if (f.kind === 'm2m') {
      entries.push([f.name, `(SELECT coalesce(jsonb_agg("j"."target_id" ORDER BY "j"."target_id"), '[]'::jsonb) FROM ${q(f.joinTable)} AS "j" WHERE "j"."source_id" = ${q(a)}."id")`]);
    } else if (f.kind === 'fk') {
      entries.push([f.name, `to_jsonb(${q(a)}.${q(f.column)})`]);
    } else if (f.column !== null) {
      entries.push([f.name, `to_jsonb(${inlineSql(storedValue(f, a))})`]);
    }
  }
  const iso = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;
  if (model.timestamps !== false) {
    const fmt = model.timestamps === 'date' ? `'YYYY-MM-DD'` : iso;
    entries.push(['created', `to_jsonb(to_char(${q(a)}."created" AT TIME ZONE 'UTC', ${fmt}))`]);
  }
  if (model.lastUpdated) entries.push(['last_updated', `to_jsonb(to_char(${q(a)}."last_updated" AT TIME ZONE 'UTC', ${iso}))`]);
  return jsonObject(entries);
}

function displayOf(registry: Registry, model: ResolvedModel, a: string): string {
  return `left(${inlineSql(new JsonCompiler(registry, snapshotCompile).display(model, a))}, 200)`;
}

/** The columns of the log row, in the order the INSERTs below list their values. */
const LOG_COLUMNS = ['time', 'user_id', 'user_name', 'request_id', 'action', 'changed_object_type', 'changed_object_id', 'object_repr', 'prechange_data', 'postchange_data'];

function logInsert(log: ResolvedModel): string {
  return `INSERT INTO ${q(log.table)} (${LOG_COLUMNS.map(q).join(', ')})`;
}

/** What writes to the outbox need: its model, the event rules', and how a rule names its webhook (absent when no model plays the roles). */
interface Outbox {
  outbox: ResolvedModel;
  rules: ResolvedModel;
  /** The rule's action (a generic relation) and the webhook model's label: the row keeps the webhook it was raised for. */
  action: GenericField;
  webhookLabel: string;
}

/** The request's origin, which URLs in a stored representation start with (engine/writes/change-context.ts). */
const ORIGIN_SQL = `coalesce(current_setting('patchbay.origin', true), '')`;

const OUTBOX_COLUMNS = ['time', 'event_rule_id', 'webhook_id', 'event', 'object_type', 'object_id', 'request_id', 'username', 'data', 'snapshots', 'status', 'attempts', 'next_attempt'];
const EVENTS = { create: ['created', 'type_create'], update: ['updated', 'type_update'], delete: ['deleted', 'type_delete'] } as const;

/**
 * One statement logging every row of `rows` (a transition table, or the table itself) as `action`, and —
 * when an outbox exists — storing an event for each enabled rule of the type and action, with the
 * object's full representation and the log row's data as snapshots. Events are raised for the types the
 * change log covers; the rules' conditions are judged when the event is dispatched.
 */
function logStatement(registry: Registry, log: ResolvedModel, out: Outbox | null, model: ResolvedModel, action: 'create' | 'update' | 'delete', rows: string, pre: string, post: string, where = 'TRUE'): string {
  const label = sqlLiteral(model.label);
  const insert = `${logInsert(log)}
    SELECT now(), "c"."user_id", "c"."user_name", "c"."request_id", '${action}', ${label}, "n"."id", ${displayOf(registry, model, 'n')}, ${pre}, ${post}
    FROM ${rows}, patchbay_change_context() AS "c" WHERE ${where} ORDER BY "n"."id"`;
  if (!out) return `${insert};`;
  const [event, flag] = EVENTS[action];
  const source = rows.replace(/ AS "n".*$/s, '');
  const data = `${eventDataFn(model)}("n")`;
  // The webhook the rule names now: deliveries keep commit order per object and webhook.
  const webhook = `CASE WHEN "r".${q(out.action.typeColumn)} = ${sqlLiteral(out.webhookLabel)} THEN "r".${q(out.action.idColumn)} END`;
  return `WITH "logged" AS (${insert}
    RETURNING "changed_object_id" AS "id", "prechange_data", "postchange_data")
  INSERT INTO ${q(out.outbox.table)} (${OUTBOX_COLUMNS.map(q).join(', ')})
    SELECT now(), "r"."id", ${webhook}, '${event}', ${label}, "n"."id", "c"."request_id", "c"."user_name", ${data},
      jsonb_build_object('prechange', "l"."prechange_data", 'postchange', "l"."postchange_data"), 'pending', 0, now()
    FROM "logged" AS "l" JOIN ${source} AS "n" ON "n"."id" = "l"."id"
      JOIN ${q(out.rules.table)} AS "r" ON "r"."enabled" AND "r".${q(flag)} AND ${label} = ANY("r"."content_types"),
      patchbay_change_context() AS "c"
    ORDER BY "n"."id", "r"."id";`;
}

/** The function giving a row's full API representation, as stored with its events. */
function eventDataFn(model: ResolvedModel): string {
  return q(sqlName('patchbay_event_data', model.table));
}

/** The trigger function and triggers of one change-logged table, and of its join tables. */
function tableTriggers(registry: Registry, log: ResolvedModel, out: Outbox | null, model: ResolvedModel): RoutineSpec {
  const t = q(model.table);
  const fn = q(sqlName('patchbay_log', model.table));
  const label = sqlLiteral(model.label);
  const create: string[] = [];
  if (out) {
    // One copy of the (large) representation per table, called by each statement that stores events.
    const repr = inlineSql(new JsonCompiler(registry, snapshotCompile).object(model, 'n', 'full', { nested: false }), { origin: ORIGIN_SQL });
    create.push(`CREATE FUNCTION ${eventDataFn(model)}("n" ${t}) RETURNS jsonb LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$ SELECT (${repr})::jsonb $$`);
  }
  create.push(
    // FROM CURRENT: the log table and the context function of the schema this was migrated in, whatever
    // the search_path of the session whose write fires it.
    `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    ${logStatement(registry, log, out, model, 'create', '"patchbay_new" AS "n"', 'NULL', serializeRow(model, 'n'))}
  ELSIF TG_OP = 'UPDATE' THEN
    ${logStatement(registry, log, out, model, 'update', '"patchbay_new" AS "n" JOIN "patchbay_old" AS "o" ON "o"."id" = "n"."id"', serializeRow(model, 'o'), serializeRow(model, 'n'))}
  ELSE
    ${logStatement(registry, log, out, model, 'delete', '"patchbay_old" AS "n"', serializeRow(model, 'n'), 'NULL')}
  END IF;
  RETURN NULL;
END
$$`,
  );
  const trigger = (suffix: string) => q(sqlName(model.table, 'log', suffix));
  create.push(
    `CREATE TRIGGER ${trigger('ins')} AFTER INSERT ON ${t} REFERENCING NEW TABLE AS "patchbay_new" FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
    `CREATE TRIGGER ${trigger('upd')} AFTER UPDATE ON ${t} REFERENCING OLD TABLE AS "patchbay_old" NEW TABLE AS "patchbay_new" FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
    `CREATE TRIGGER ${trigger('del')} AFTER DELETE ON ${t} REFERENCING OLD TABLE AS "patchbay_old" FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
  );
  const drop = ['ins', 'upd', 'del'].map((s) => `DROP TRIGGER IF EXISTS ${trigger(s)} ON ${t}`);
  const links = model.fieldList.filter((f): f is LinkField => f.kind === 'm2m' || f.kind === 'tags');
  if (links.length) {
    const linkFn = q(sqlName('patchbay_log_links', model.table));
    const lg = q(log.table);
    const ctx = `patchbay_change_context() AS "c"`;
    const same = `"l"."changed_object_type" = ${label} AND "l"."changed_object_id" = "n"."id" AND "l"."time" = now() AND "l"."request_id" = "c"."request_id"`;
    const refreshEvents = out
      ? `UPDATE ${q(out.outbox.table)} AS "e" SET "data" = ${eventDataFn(model)}("n"),
      "snapshots" = jsonb_set(coalesce("e"."snapshots", '{}'::jsonb), '{postchange}', ${serializeRow(model, 'n')})
    FROM ${t} AS "n", ${ctx} WHERE "n"."id" = ANY(ids) AND "e"."object_type" = ${label} AND "e"."object_id" = "n"."id" AND "e"."time" = now()
      AND "e"."request_id" = "c"."request_id" AND "e"."event" <> 'deleted' AND "e"."status" = 'pending';`
      : '';
    create.push(`CREATE FUNCTION ${linkFn}() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  ids bigint[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(DISTINCT "source_id") INTO ids FROM "patchbay_new";
  ELSE
    SELECT array_agg(DISTINCT "source_id") INTO ids FROM "patchbay_old";
  END IF;
  -- Objects already logged by this transaction (their row was written or changed with the links): their
  -- change, and the events it raised, now show the links as they are.
  UPDATE ${lg} AS "l" SET "postchange_data" = ${serializeRow(model, 'n')}
    FROM ${t} AS "n", ${ctx} WHERE "n"."id" = ANY(ids) AND ${same} AND "l"."action" <> 'delete';
  ${refreshEvents}
  -- Objects whose links alone changed (a tag deleted from under them): an update of their own.
  ${logStatement(registry, log, out, model, 'update', `${t} AS "n"`, 'NULL', serializeRow(model, 'n'), `"n"."id" = ANY(ids) AND NOT EXISTS (SELECT 1 FROM ${lg} AS "l" WHERE ${same})`)}
  RETURN NULL;
END
$$`);
    for (const f of links) {
      const jt = q(f.joinTable);
      const jtrigger = (suffix: string) => q(sqlName(f.joinTable, 'log', suffix));
      create.push(
        `CREATE TRIGGER ${jtrigger('ins')} AFTER INSERT ON ${jt} REFERENCING NEW TABLE AS "patchbay_new" FOR EACH STATEMENT EXECUTE FUNCTION ${linkFn}()`,
        `CREATE TRIGGER ${jtrigger('del')} AFTER DELETE ON ${jt} REFERENCING OLD TABLE AS "patchbay_old" FOR EACH STATEMENT EXECUTE FUNCTION ${linkFn}()`,
      );
      drop.push(`DROP TRIGGER IF EXISTS ${jtrigger('ins')} ON ${jt}`, `DROP TRIGGER IF EXISTS ${jtrigger('del')} ON ${jt}`);
    }
    drop.push(`DROP FUNCTION ${linkFn}()`);
  }
  drop.push(`DROP FUNCTION ${fn}()`);
  if (out) drop.push(`DROP FUNCTION ${eventDataFn(model)}(${t})`);
  return { create, drop };
}

/** The change log's routines by name: the context function, and one per change-logged table. */
export function changeLogRoutines(registry: Registry): Record<string, RoutineSpec> {
  const log = registry.roles.get('object_change');
  if (!log) return {};
  const outbox = registry.roles.get('event_outbox');
  const rules = registry.roles.get('event_rule');
  const webhooks = registry.roles.get('webhook');
  const action = rules?.fields.get('action_object');
  const events = outbox && rules && webhooks && action?.kind === 'generic_fk' ? { outbox, rules, action, webhookLabel: webhooks.label } : null;
  const out: Record<string, RoutineSpec> = { patchbay_change_context: CONTEXT };
  for (const model of [...registry.models.values()].sort((a, b) => a.table.localeCompare(b.table))) {
    if (!model.changeLogged || model === log) continue;
    out[sqlName('patchbay_change_log', model.table)] = { ...tableTriggers(registry, log, events, model), serves: model.table };
  }
  return out;
}
