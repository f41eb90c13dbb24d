import type { Registry } from '../definitions/registry-types';
import { ident, type Sql } from '../sql/fragment';

/** The tables of the models playing the user and token roles (their fields are fixed by the role contract). */
export function authTables(registry: Registry): { users: Sql; tokens: Sql } {
  const user = registry.roles.get('user');
  const token = registry.roles.get('token');
  if (!user || !token) throw new Error('authentication needs models with "role": "user" and "role": "token"');
  return { users: ident(user.table), tokens: ident(token.table) };
}
