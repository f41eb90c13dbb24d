import type { Request } from 'express';
import { HttpError } from '../http/http-error';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** 1 to 255 printable ASCII characters (space included), as the IETF draft's opaque key. */
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;

/**
 * The write's Idempotency-Key, or null when it has none (or is not a write: the header means nothing on a
 * read). A key that is not 1..255 printable ASCII characters, or sent twice, is a 400 naming the header.
 */
export function idempotencyKeyOf(req: Request): string | null {
  if (!WRITE_METHODS.has(req.method)) return null;
  const raw = req.headersDistinct['idempotency-key'];
  if (!raw) return null;
  if (raw.length !== 1) throw badKey('Send one Idempotency-Key header, not several.');
  if (!VALID_KEY.test(raw[0]!)) throw badKey('The Idempotency-Key must be 1 to 255 printable ASCII characters.');
  return raw[0]!;
}

function badKey(message: string): HttpError {
  return new HttpError(400, { [IDEMPOTENCY_KEY_HEADER]: [message] });
}

/** The same key sent with another request (method, path and query, or body) than the one it answered. */
export function keyReused(): HttpError {
  return new HttpError(422, { [IDEMPOTENCY_KEY_HEADER]: ['This Idempotency-Key was already used with a different request (method, path or body); use a new key for a new request.'] });
}
