import type { Registry } from '../definitions/registry-types';
import { quoteIdent } from '../storage/identifiers';

/** The quoted tables of the models playing the user and token roles (their fields are fixed by the role contract). */
export function authTables(registry: Registry): { users: string; tokens: string } {
  const user = registry.roles.get('user');
  const token = registry.roles.get('token');
  if (!user || !token) throw new Error('authentication needs models with "role": "user" and "role": "token"');
  return { users: quoteIdent(user.table), tokens: quoteIdent(token.table) };
}
