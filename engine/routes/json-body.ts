import type { Request } from 'express';
import { HttpError } from './http-error';

const MAX_DEPTH = 100;
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Whether a Content-Type names JSON, including pynetbox 7.0's "application/json;" with its trailing semicolon. */
export function isJsonType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  return contentType.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

function depthOf(value: unknown): number {
  // Iterative, so a hostile document cannot exhaust the stack here.
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d > max) max = d;
    if (max > MAX_DEPTH) return max;
    for (const child of Object.values(v as object)) stack.push([child, d + 1]);
  }
  return max;
}

/** The request body as JSON: 415 for another media type, 400 for malformed or absurdly deep JSON; undefined when empty. */
export function parseJsonBody(req: Request): unknown {
  const raw = req.body;
  if (!Buffer.isBuffer(raw) || raw.length === 0) return undefined;
  const type = req.headers['content-type'];
  if (!isJsonType(type)) {
    throw new HttpError(415, { detail: `Unsupported media type "${type ?? ''}" in request.` });
  }
  let text: string;
  try {
    // Strict: bytes that are not UTF-8 are refused rather than stored as U+FFFD.
    text = UTF8.decode(raw);
  } catch {
    throw new HttpError(400, { detail: 'JSON parse error - request body is not valid UTF-8' });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    const reason = e instanceof RangeError ? 'document nested too deeply' : (e as Error).message;
    throw new HttpError(400, { detail: `JSON parse error - ${reason}` });
  }
  if (depthOf(parsed) > MAX_DEPTH) throw new HttpError(400, { detail: `JSON parse error - document nested deeper than ${MAX_DEPTH} levels` });
  return parsed;
}
