import type { Request, Response } from 'express';
import { HttpError } from './http-error';
import { readBody } from './request-body';

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Whether a Content-Type names JSON, including pynetbox 7.0's "application/json;" with its trailing semicolon. */
export function isJsonType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  return contentType.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/**
 * The request body as JSON, read now (callers ask only once the caller is known and allowed): 415 for
 * another media type, 413 past `maxBytes`, 400 for malformed or too deeply nested JSON (refused while
 * streaming); undefined when empty.
 */
export async function parseJsonBody(req: Request, res: Response, maxBytes: number): Promise<unknown> {
  const type = req.headers['content-type'];
  const declared = req.headers['content-length'];
  // A body announced as something else is refused before a byte of it is read.
  if ((declared && declared !== '0') || req.headers['transfer-encoding']) {
    if (!isJsonType(type)) throw new HttpError(415, { detail: `Unsupported media type "${type ?? ''}" in request.` }, { Connection: 'close' });
  }
  const raw = await readBody(req, res, { maxBytes, json: true });
  if (raw.length === 0) return undefined;
  if (!isJsonType(type)) throw new HttpError(415, { detail: `Unsupported media type "${type ?? ''}" in request.` });
  let text: string;
  try {
    // Strict: bytes that are not UTF-8 are refused rather than stored as U+FFFD.
    text = UTF8.decode(raw);
  } catch {
    throw new HttpError(400, { detail: 'JSON parse error - request body is not valid UTF-8' });
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new HttpError(400, { detail: `JSON parse error - ${(e as Error).message}` });
  }
}
