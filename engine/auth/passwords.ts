import crypto from 'node:crypto';

/**
 * Passwords in Django's format, pbkdf2_sha256$<iterations>$<salt>$<base64 hash>, so password hashes
 * move between Patchbay and NetBox unchanged.
 */
const ITERATIONS = 600000;

export function hashPassword(password: string, salt = crypto.randomBytes(16).toString('base64url').slice(0, 22), iterations = ITERATIONS): string {
  const hash = crypto.pbkdf2Sync(password, salt, iterations, 32, 'sha256').toString('base64');
  return `pbkdf2_sha256$${iterations}$${salt}$${hash}`;
}

/** Constant-time comparison against a stored hash; unknown formats never match. */
export function verifyPassword(password: string, stored: string): boolean {
  const parts = stored.split('$');
  if (parts.length !== 4 || parts[0] !== 'pbkdf2_sha256') return false;
  const iterations = Number(parts[1]);
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > 10_000_000) return false;
  const expected = Buffer.from(parts[3]!, 'base64');
  const actual = crypto.pbkdf2Sync(password, parts[2]!, iterations, expected.length || 32, 'sha256');
  return expected.length === actual.length && crypto.timingSafeEqual(expected, actual);
}

/** verifyPassword without blocking the event loop (PBKDF2 at Django's work factor takes a while). */
export async function verifyPasswordAsync(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 4 || parts[0] !== 'pbkdf2_sha256') return false;
  const iterations = Number(parts[1]);
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > 10_000_000) return false;
  const expected = Buffer.from(parts[3]!, 'base64');
  const actual = await new Promise<Buffer>((resolve, reject) =>
    crypto.pbkdf2(password, parts[2]!, iterations, expected.length || 32, 'sha256', (err, key) => (err ? reject(err) : resolve(key))),
  );
  return expected.length === actual.length && crypto.timingSafeEqual(expected, actual);
}

/** A hash no password matches, checked against when the user does not exist so timing does not tell. */
export const DUMMY_HASH = hashPassword('patchbay-no-such-user', 'patchbaydummysalt');
