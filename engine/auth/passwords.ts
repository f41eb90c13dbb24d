import crypto from 'node:crypto';

/**
 * Passwords in Django's format, pbkdf2_sha256$<iterations>$<salt>$<base64 hash>, so password hashes
 * move between Patchbay and NetBox unchanged.
 *
 * PBKDF2 at Django's work factor costs hundreds of milliseconds of CPU. Both directions run it on libuv's
 * thread pool (crypto.pbkdf2), never on the event loop, where it would stall every request of the process.
 */
const ITERATIONS = 600000;

function pbkdf2(password: string, salt: string, iterations: number, length: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) =>
    crypto.pbkdf2(password, salt, iterations, length, 'sha256', (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string, salt = crypto.randomBytes(16).toString('base64url').slice(0, 22), iterations = ITERATIONS): Promise<string> {
  const hash = (await pbkdf2(password, salt, iterations, 32)).toString('base64');
  return `pbkdf2_sha256$${iterations}$${salt}$${hash}`;
}

/** Constant-time comparison against a stored hash; unknown formats never match. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 4 || parts[0] !== 'pbkdf2_sha256') return false;
  const iterations = Number(parts[1]);
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > 10_000_000) return false;
  const expected = Buffer.from(parts[3]!, 'base64');
  const actual = await pbkdf2(password, parts[2]!, iterations, expected.length || 32);
  return expected.length === actual.length && crypto.timingSafeEqual(expected, actual);
}

/**
 * A hash no password matches, checked against when the user does not exist so timing does not tell: it
 * costs a verification the same work as a real one. Its digest is 32 zero bytes, which no password is
 * known to derive, so nothing need be computed to make it (at module load that would block the loop).
 */
export const DUMMY_HASH = `pbkdf2_sha256$${ITERATIONS}$patchbaydummysalt$${Buffer.alloc(32).toString('base64')}`;
