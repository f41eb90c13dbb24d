import type { Knex } from 'knex';
import type { Registry } from '../definitions/registry-types';
import { hashPassword } from '../auth/passwords';
import { defaultWith } from '../definitions/named-functions';
import { authTables } from '../auth/auth-tables';

/** Creates (or promotes) a superuser and gives it a new write-enabled token; returns the token key. */
export async function createSuperuser(knex: Knex, registry: Registry, username: string, password: string, key?: string): Promise<string> {
  const { users, tokens } = authTables(registry);
  if (key !== undefined && !/^[0-9a-fA-F]{40}$/.test(key)) throw new Error('--token must be 40 hexadecimal characters');
  const tokenKey = key ?? String(defaultWith('token_key'));
  return knex.transaction(async (trx) => {
    const result = await trx.raw(
      `INSERT INTO ${users} ("username", "password", "is_superuser", "is_staff", "is_active", "date_joined")
       VALUES (?, ?, true, true, true, now())
       ON CONFLICT ("username") DO UPDATE SET "password" = EXCLUDED."password", "is_superuser" = true, "is_staff" = true, "is_active" = true
       RETURNING "id"`,
      [username, hashPassword(password)],
    );
    const userId = (result.rows as Array<{ id: number }>)[0]!.id;
    await trx.raw(
      `INSERT INTO ${tokens} ("user_id", "key", "write_enabled", "description") VALUES (?, ?, true, 'created by createsuperuser')
       ON CONFLICT ("key") DO UPDATE SET "user_id" = EXCLUDED."user_id", "write_enabled" = true, "expires" = NULL`,
      [userId, tokenKey],
    );
    return tokenKey;
  });
}
