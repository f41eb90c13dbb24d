import type { Request, Response } from 'express';
import { HttpError } from './http-error';

/** Deepest JSON nesting a body may have; refused while the bytes arrive, before anything is parsed. */
export const MAX_JSON_DEPTH = 100;

/**
 * Tracks the nesting depth of a JSON text as its bytes stream in: brackets inside strings do not count.
 * Multi-byte UTF-8 sequences never contain the ASCII bytes it looks at, so bytes need no decoding here.
 */
class JsonDepthGuard {
  private depth = 0;
  private inString = false;
  private escaped = false;

  /** False once the text has gone deeper than the limit. */
  feed(chunk: Buffer): boolean {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === 0x5c) this.escaped = true;
        else if (b === 0x22) this.inString = false;
      } else if (b === 0x22) this.inString = true;
      else if (b === 0x5b || b === 0x7b) {
        if (++this.depth > MAX_JSON_DEPTH) return false;
      } else if (b === 0x5d || b === 0x7d) this.depth--;
    }
    return true;
  }
}

export interface BodyLimits {
  /** Bytes at most. */
  maxBytes: number;
  /** Check JSON nesting as the bytes arrive. */
  json: boolean;
}

const tooLarge = (limit: number) => new HttpError(413, { detail: `Request body is larger than ${limit} bytes.` }, { Connection: 'close' });
const tooDeep = () => new HttpError(400, { detail: `JSON parse error - document nested deeper than ${MAX_JSON_DEPTH} levels` }, { Connection: 'close' });

/**
 * The request body, read only when a handler asks for it (after authentication and the permission
 * check), at most `maxBytes` of it, and for JSON no deeper than MAX_JSON_DEPTH — both refused while
 * streaming, so neither a large nor a deeply nested body is ever buffered or parsed whole.
 * Resolves to an empty buffer when there is no body. Reads at most once per request.
 */
export function readBody(req: Request, res: Response, limits: BodyLimits): Promise<Buffer> {
  const cached = res.locals.body as Promise<Buffer> | undefined;
  if (cached) return cached;
  const reading = new Promise<Buffer>((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limits.maxBytes) {
      reject(tooLarge(limits.maxBytes));
      return;
    }
    if (req.readableEnded || (!req.headers['content-length'] && !req.headers['transfer-encoding'])) {
      resolve(Buffer.alloc(0));
      return;
    }
    const guard = limits.json ? new JsonDepthGuard() : null;
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (err: HttpError) => {
      req.off('data', onData);
      req.off('end', onEnd);
      // The rest is not read: the answer closes the connection (see closeUnreadBodies).
      req.pause();
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limits.maxBytes) return stop(tooLarge(limits.maxBytes));
      if (guard && !guard.feed(chunk)) return stop(tooDeep());
      chunks.push(chunk);
    };
    const onEnd = () => resolve(Buffer.concat(chunks, size));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', (e) => reject(new HttpError(400, { detail: `Request body could not be read: ${e.message}` })));
  });
  res.locals.body = reading;
  return reading;
}

/**
 * A request answered without its body being read to the end (refused before reading, or cut off at
 * a limit) must not keep the connection: the unread bytes would be taken for the next request. The
 * answer says `Connection: close`, and Node discards what remains.
 */
export function closeUnreadBodies(req: Request, res: Response, next: () => void): void {
  const writeHead = res.writeHead;
  const length = req.headers['content-length'];
  const hasBody = (!!length && length !== '0') || !!req.headers['transfer-encoding'];
  if (hasBody) {
    res.writeHead = function (this: Response, ...args: Parameters<Response['writeHead']>) {
      if (!req.readableEnded && !res.headersSent) res.setHeader('Connection', 'close');
      return writeHead.apply(this, args);
    } as Response['writeHead'];
  }
  next();
}
