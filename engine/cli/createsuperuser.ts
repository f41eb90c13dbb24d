import type { Registry } from '../definitions/registry-types';
import { hashPassword } from '../auth/passwords';
import { defaultWith } from '../definitions/named-functions';
import { authTables } from '../auth/auth-tables';
import { sql } from '../sql/fragment';
import { runRows } from '../database/run';
import type { Db } from '../database/db';

/** Creates (or promotes) a superuser and gives it a new write-enabled token; returns the token key. */
export async function createSuperuser(knex: Db, registry: Registry, username: string, password: string, key?: string): Promise<string> {
  const { users, tokens } = authTables(registry);
  if (key !== undefined && !/^[0-9a-fA-F]{40}$/.test(key)) throw new Error('--token must be 40 hexadecimal characters');
  const tokenKey = key ?? String(defaultWith('token_key'));
  // Hashed before the transaction opens: it holds no connection while PBKDF2 runs.
  const hash = await hashPassword(password);
  return knex.transaction(async (trx) => {
    const [user] = await runRows<{ id: number }>(trx, sql`INSERT INTO ${users} ("username", "password", "is_superuser", "is_staff", "is_active", "date_joined")
       VALUES (${username}, ${hash}, true, true, true, now())
       ON CONFLICT ("username") DO UPDATE SET "password" = EXCLUDED."password", "is_superuser" = true, "is_staff" = true, "is_active" = true
       RETURNING "id"`);
    await runRows(trx, sql`INSERT INTO ${tokens} ("user_id", "key", "write_enabled", "description") VALUES (${user!.id}, ${tokenKey}, true, 'created by createsuperuser')
       ON CONFLICT ("key") DO UPDATE SET "user_id" = EXCLUDED."user_id", "write_enabled" = true, "expires" = NULL`);
    return tokenKey;
  });
}
