import type { TestApp } from '../../support/test-app';
import type { ResolvedModel } from '../../../engine/definitions/registry-types';
import { quoteIdent } from '../../../engine/migrations/identifiers';
import { listUrl, servedModels, validObjects, type Body } from '../../support/valid-objects';
import { sendObject } from '../../support/send-object';
import type { Db } from '../../../engine/database/db';

/**
 * What every case may count on finding: callers of each kind (tokens, browser sessions logged in
 * through /login/), two objects of every served type (one to read and change, one to delete), a valid
 * body of every type to mutate, and a custom field of every type. Made once per database, in the same
 * order each run, so ids are the same from run to run.
 */

export type IdentityName = 'superuser' | 'user' | 'readonly' | 'constrained' | 'session-super' | 'session-user' | 'anonymous';
export const IDENTITIES: readonly IdentityName[] = ['superuser', 'user', 'readonly', 'constrained', 'session-super', 'session-user', 'anonymous'];

export interface Session {
  sessionid: string;
  csrftoken: string;
  /** Tokens of the session's user (the profile page edits and deletes them). */
  tokenIds: number[];
}

export interface Fixtures {
  tokens: Record<'superuser' | 'user' | 'readonly' | 'constrained', string>;
  /** A user whose one permission the constraint cases rewrite before acting as that user (not put back: each case sets it whole). */
  probe: { token: string; permissionId: number };
  sessions: Record<'session-super' | 'session-user', Session>;
  /** Served types -> [an object to read and change, an object to delete]. */
  objects: Map<string, number[]>;
  /** Served types -> a body that created an object of the type. */
  bodies: Map<string, Body>;
  customFields: Array<{ name: string; type: string }>;
  /** The password of the session users (login cases may use it). */
  password: string;
  usernames: string[];
  /** Puts back whatever a case changed of the callers (a deleted token, a logged-out session, a user made inactive). */
  restore(): Promise<void>;
}

const PASSWORD = 'fuzz-password-1';

async function userIdOfToken(t: TestApp, key: string): Promise<number> {
  const r = await t.knex.raw(`SELECT "user_id" FROM "users_token" WHERE "key" = ?`, [key]);
  return (r.rows as Array<{ user_id: number }>)[0]!.user_id;
}

async function post(t: TestApp, path: string, body: unknown, model?: ResolvedModel): Promise<Body> {
  const res = model ? await sendObject(t, 'post', path, model, body) : await t.api.post(path).set(t.auth).send(body as object);
  if (res.status !== 201) throw new Error(`fixture POST ${path} ${JSON.stringify(body)}: ${res.status} ${res.text}`);
  return res.body as Body;
}

/** Logs a user in through the login page, as a browser does: the page's CSRF cookie and token, then the form. */
async function logIn(t: TestApp, username: string): Promise<{ sessionid: string; csrftoken: string }> {
  const page = await t.api.get('/login/');
  const formToken = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(page.text)?.[1];
  const cookie = (page.headers['set-cookie'] as unknown as string[] | undefined)?.map((c) => c.split(';')[0]).join('; ');
  if (!formToken || !cookie) throw new Error(`the login page gave no CSRF token: ${page.status}`);
  const res = await t.api.post('/login/').set('Cookie', cookie).type('form').send(`csrfmiddlewaretoken=${formToken}&username=${username}&password=${PASSWORD}`);
  const set = (res.headers['set-cookie'] as unknown as string[] | undefined) ?? [];
  const value = (name: string) => set.map((c) => c.split(';')[0]!).find((c) => c.startsWith(`${name}=`))?.slice(name.length + 1);
  const sessionid = value('sessionid');
  const csrftoken = value('csrftoken');
  if (res.status !== 302 || !sessionid || !csrftoken) throw new Error(`logging ${username} in: ${res.status} ${res.text}`);
  return { sessionid, csrftoken };
}

/** The rows that make up the callers, kept as JSON to put back after a case changes them. */
interface Snapshot {
  table: string;
  key: string;
  rows: unknown[];
}

/** Columns a request legitimately moves on its own (a token's last use): not a change to undo. */
const VOLATILE = ['last_used', 'last_updated', 'last_login'];

async function snapshot(knex: Db, table: string, key: string, ids: number[]): Promise<Snapshot> {
  const r = await knex.raw(`SELECT to_jsonb(x) AS "row" FROM ${quoteIdent(table)} x WHERE ${quoteIdent(key)} = ANY(?) ORDER BY 1`, [ids]);
  return { table, key, rows: (r.rows as Array<{ row: unknown }>).map((x) => x.row) };
}

function comparable(rows: unknown[]): string {
  return JSON.stringify(
    rows
      .map((r) => Object.fromEntries(Object.entries(r as Record<string, unknown>).filter(([k]) => !VOLATILE.includes(k)).sort(([a], [b]) => a.localeCompare(b))))
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
  );
}

async function restoreSnapshot(knex: Db, s: Snapshot): Promise<void> {
  const ids = [...new Set(s.rows.map((r) => (r as Record<string, number>)[s.key]!))];
  const now = await snapshot(knex, s.table, s.key, ids);
  if (comparable(now.rows) === comparable(s.rows)) return;
  const table = quoteIdent(s.table);
  await knex.transaction(async (trx) => {
    for (const row of s.rows) {
      const columns = Object.keys(row as object).map(quoteIdent);
      // Rows with an id of their own are put back as they were; link rows (no id) only need to exist.
      const conflict = s.key === 'id' ? `("id") DO UPDATE SET (${columns.join(', ')}) = ROW(${columns.map((c) => `EXCLUDED.${c}`).join(', ')})` : 'DO NOTHING';
      await trx.raw(`INSERT INTO ${table} SELECT * FROM jsonb_populate_record(NULL::${table}, ?::jsonb) ON CONFLICT ${conflict}`, [JSON.stringify(row)]);
    }
  });
}

/** The name of a choice set (choices a and b) for the selection custom fields, made on first use. */
async function choiceSet(t: TestApp): Promise<string> {
  const sets = t.registry.roles.get('custom_field_choice_set')!;
  const name = 'fz choices';
  const found = await t.api.get(`${listUrl(sets)}?name=${encodeURIComponent(name)}`).set(t.auth);
  if (!found.body.count) await post(t, listUrl(sets), { name, extra_choices: [['a', 'A'], ['b', 'B']] });
  return name;
}

/** One custom field of every type the definitions offer, on every type that has custom fields. */
async function makeCustomFields(t: TestApp): Promise<Array<{ name: string; type: string }>> {
  const cf = t.registry.roles.get('custom_field');
  if (!cf) return [];
  const types = cf.fields.get('type')?.choices?.entries.map((e) => String(e.value)) ?? [];
  const holders = servedModels(t.registry).filter((m) => m.fieldList.some((f) => f.kind === 'custom_fields')).map((m) => m.label);
  const out: Array<{ name: string; type: string }> = [];
  for (const type of types) {
    const name = `fz_${type}`;
    const body: Body = { name, type, content_types: holders, required: false };
    // A selection needs its choices and an object field its type: the 400 names what is missing, and it is given.
    for (let attempt = 0; attempt < 3; attempt++) {
      const res = await t.api.post(listUrl(cf)).set(t.auth).send(body);
      if (res.status === 201) {
        out.push({ name, type });
        break;
      }
      const missing = Object.keys(res.body as object);
      if (res.status !== 400 || !missing.length) throw new Error(`custom field ${type}: ${res.status} ${res.text}`);
      if (missing.includes('choice_set')) body.choice_set = { name: await choiceSet(t) };
      if (missing.includes('object_type')) body.object_type = 'dcim.site';
    }
  }
  return out;
}

export async function makeFixtures(t: TestApp): Promise<Fixtures> {
  const objectsApi = validObjects(() => t);
  const users = t.registry.roles.get('user')!;
  const tokens = t.registry.roles.get('token')!;
  const sessionsModel = t.registry.roles.get('session')!;
  const permission = t.registry.roles.get('permission')!;

  // Callers with tokens.
  const user = await t.makeToken({ superuser: false });
  const readonly = await t.makeToken({ superuser: true, writeEnabled: false });
  const constrained = await t.makeToken({ superuser: false });
  const constrainedUser = await userIdOfToken(t, constrained);
  const types = servedModels(t.registry).map((m) => m.label);
  const permissionIds = [
    (await post(t, listUrl(permission), { name: 'fuzz view', object_types: types, actions: ['view'], users: [constrainedUser] })).id as number,
    (await post(t, listUrl(permission), { name: 'fuzz write', object_types: types, actions: ['add', 'change', 'delete'], users: [constrainedUser], constraints: [{ id__gt: 0 }, { id__lt: 0 }] })).id as number,
  ];

  const probeToken = await t.makeToken({ superuser: false });
  const probeUser = await userIdOfToken(t, probeToken);
  const probePermission = (await post(t, listUrl(permission), { name: 'fuzz probe', object_types: ['dcim.site'], actions: ['view'], users: [probeUser] })).id as number;

  // Callers with browser sessions, logged in through the login page.
  const superUser = (await post(t, listUrl(users), { username: 'fuzz-super', password: PASSWORD })).id as number;
  await t.knex.raw(`UPDATE ${quoteIdent(users.table)} SET "is_superuser" = true WHERE "id" = ?`, [superUser]);
  const plainUser = (await post(t, listUrl(users), { username: 'fuzz-user', password: PASSWORD })).id as number;
  const sessions = {} as Fixtures['sessions'];
  for (const [name, id, username] of [['session-super', superUser, 'fuzz-super'], ['session-user', plainUser, 'fuzz-user']] as const) {
    const tokenIds: number[] = [];
    for (let i = 0; i < 2; i++) tokenIds.push((await post(t, listUrl(tokens), { user: id, description: `${name} ${i}` })).id as number);
    sessions[name] = { ...(await logIn(t, username)), tokenIds };
  }

  const customFields = await makeCustomFields(t);

  // Two objects of every served type, the first from a body kept for the cases to mutate.
  const objects = new Map<string, number[]>();
  const bodies = new Map<string, Body>();
  for (const m of servedModels(t.registry)) {
    if (m.def.read_only) continue;
    const body = await objectsApi.validBody(m);
    const created = await post(t, listUrl(m), body, m);
    bodies.set(m.label, body);
    objects.set(m.label, [created.id as number, await objectsApi.createOne(m)]);
  }
  // The outbox holds events only for an enabled rule: the first event rule made above is made to catch
  // creates of a writable type, and two objects of it are created, so event deliveries have rows too.
  const rules = t.registry.roles.get('event_rule');
  const caught = servedModels(t.registry).find((m) => !m.def.read_only && m.changeLogged && m.label !== rules?.label);
  const ruleId = rules ? objects.get(rules.label)?.[0] : undefined;
  if (rules && caught && ruleId !== undefined) {
    const patched = await t.api.patch(`${listUrl(rules)}${ruleId}/`).set(t.auth).send({ enabled: true, type_create: true, content_types: [caught.label], conditions: null });
    if (patched.status !== 200) throw new Error(`fixture PATCH event rule: ${patched.status} ${patched.text}`);
    for (let i = 0; i < 2; i++) objects.get(caught.label)!.push(await objectsApi.createOne(caught));
  }
  for (const m of servedModels(t.registry)) {
    if (!m.def.read_only) continue;
    // Served for reading only (content types, whose rows migrations make; the change log and the outbox,
    // which the writes above filled): the cases aim at two existing rows.
    const rows = await t.api.get(`${listUrl(m)}?limit=2`).set(t.auth);
    if (rows.status !== 200 || rows.body.results.length < 2) throw new Error(`fixture GET ${listUrl(m)}: ${rows.status} ${rows.text}`);
    objects.set(m.label, rows.body.results.map((r: { id: number }) => r.id));
    bodies.set(m.label, {});
  }

  const tokenUserIds = await Promise.all([t.token, user, readonly, constrained].map((k) => userIdOfToken(t, k)));
  const userIds = [...tokenUserIds, superUser, plainUser];
  // The callers' own users may be named in bodies too (a permission given to the constrained user, a token
  // made for another): after the fixtures' two, so reads, changes and deletes still aim at those.
  objects.get(users.label)?.push(...userIds);
  const tokenIdsOf = async (ids: number[]) => (await t.knex.raw<{ id: number }>(`SELECT "id" FROM ${quoteIdent(tokens.table)} WHERE "user_id" = ANY(?)`, [ids])).rows.map((r: { id: number }) => r.id) as number[];
  const joinTable = (m: ResolvedModel, field: string) => m.fields.get(field)!.joinTable!;
  const kept: Snapshot[] = [
    await snapshot(t.knex, users.table, 'id', userIds),
    await snapshot(t.knex, tokens.table, 'id', await tokenIdsOf(userIds)),
    await snapshot(t.knex, sessionsModel.table, 'id', (await t.knex.raw<{ id: number }>(`SELECT "id" FROM ${quoteIdent(sessionsModel.table)} WHERE "user_id" = ANY(?)`, [[superUser, plainUser]])).rows.map((r: { id: number }) => r.id)),
    await snapshot(t.knex, permission.table, 'id', permissionIds),
    await snapshot(t.knex, joinTable(permission, 'users'), 'source_id', permissionIds),
  ];

  return {
    tokens: { superuser: t.token, user, readonly, constrained },
    probe: { token: probeToken, permissionId: probePermission },
    sessions,
    objects,
    bodies,
    customFields,
    password: PASSWORD,
    usernames: ['fuzz-super', 'fuzz-user', 'admin'],
    restore: async () => {
      for (const s of kept) await restoreSnapshot(t.knex, s);
    },
  };
}
