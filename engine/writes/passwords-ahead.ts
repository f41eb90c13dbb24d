import type { ResolvedModel } from '../definitions/registry-types';
import { hashPassword } from '../auth/passwords';

/** Hashes of the passwords a request's bodies set, by the password as written. */
export type PasswordHashes = ReadonlyMap<string, string>;

export const NO_HASHES: PasswordHashes = new Map();

/**
 * The passwords the bodies set, hashed before the write's transaction opens. Hashing takes hundreds of
 * milliseconds (off the event loop, engine/auth/passwords.ts); inside the transaction it would hold a
 * connection that long, on the embedded database the only session, so every other request would wait,
 * and a retried transaction would hash again. A body refused later has been hashed for nothing: the
 * cost of keeping validation in one place (prepareWrite).
 */
export async function hashPasswordsAhead(model: ResolvedModel, bodies: readonly unknown[]): Promise<PasswordHashes> {
  const names = new Set<string>();
  for (const f of model.fieldList) if (f.kind === 'password' && !f.readOnly) names.add(f.name);
  if (!names.size) return NO_HASHES;
  for (const [alias, canonical] of model.writeAliases) if (names.has(canonical)) names.add(alias);
  const plain = new Set<string>();
  for (const body of bodies) {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) continue;
    for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
      if (names.has(key) && typeof value === 'string') plain.add(value);
    }
  }
  const hashes = new Map<string, string>();
  for (const p of plain) hashes.set(p, await hashPassword(p));
  return hashes;
}
