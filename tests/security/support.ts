import type { TestApp } from '../support/test-app';

export interface User {
  id: number;
  key: string;
  h: { Authorization: string };
}

/** A new non-superuser with a token and no permissions. */
export async function newUser(t: TestApp, opts: { superuser?: boolean } = {}): Promise<User> {
  const key = await t.makeToken({ superuser: opts.superuser ?? false });
  const r = await t.knex.raw(`SELECT "user_id" FROM "users_token" WHERE "key" = ?`, [key]);
  return { id: (r.rows as Array<{ user_id: number }>)[0]!.user_id, key, h: { Authorization: `Token ${key}` } };
}

let permissions = 0;

/** An ObjectPermission made through the API by the superuser. */
export async function grant(t: TestApp, p: { users: number[]; types: string[]; actions: string[]; constraints?: unknown }): Promise<number> {
  const res = await t.api
    .post('/api/users/permissions/')
    .set(t.auth)
    .send({ name: `security permission ${++permissions}`, object_types: p.types, actions: p.actions, constraints: p.constraints ?? null, users: p.users });
  if (res.status !== 201) throw new Error(`granting ${JSON.stringify(p)}: ${res.status} ${res.text}`);
  return res.body.id as number;
}

/** Makes an object through the API as the superuser; its id. */
export async function made(t: TestApp, path: string, body: Record<string, unknown>): Promise<number> {
  const res = await t.api.post(path).set(t.auth).send(body);
  if (res.status !== 201) throw new Error(`POST ${path} ${JSON.stringify(body)}: ${res.status} ${res.text}`);
  return res.body.id as number;
}

/** Every string anywhere inside a JSON value. */
export function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value as Record<string, unknown>).flatMap(stringsIn);
}
