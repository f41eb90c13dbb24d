import crypto from 'node:crypto';
import type { Request, Response } from 'express';
import type { ApiContext } from '../http/api-context';
import { readBody } from '../http/request-body';
import { claimKey, storeAnswer, storedAnswer, type StoredAnswer } from './key-store';
import { idempotencyKeyOf, keyReused, REPLAYED_HEADER } from './idempotency-header';

/** The headers of an answer a replay gives again; the others (X-Request-ID, API-Version) are the replay's own. */
const KEPT_HEADERS = ['content-type', 'location'];

/** A write that answered 4xx or 5xx: its transaction rolls back, the key with it, so a retry runs again. */
class AnswerRefused extends Error {
  constructor() {
    super('the write answered with an error: its key is not kept');
    this.name = 'AnswerRefused';
  }
}

/**
 * The response's end held back while the write's transaction is open: its answer is stored with the key
 * before COMMIT and sent only once COMMIT succeeded (a 504 instead, should COMMIT's outcome be unknown).
 */
class HeldAnswer {
  private readonly end: Response['end'];
  private args: unknown[] | null = null;

  constructor(private readonly res: Response) {
    this.end = res.end;
    res.end = ((...args: unknown[]) => {
      this.args = args;
      return res;
    }) as Response['end'];
  }

  get ended(): boolean {
    return this.args !== null;
  }

  /** The answer as it will be sent: status, kept headers, body as text. */
  answer(fingerprint: string): StoredAnswer {
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const v = this.res.getHeader(name);
      if (v !== undefined) headers[name] = String(v);
    }
    const chunk = this.args?.[0];
    const body = typeof chunk === 'string' ? chunk : chunk instanceof Uint8Array ? Buffer.from(chunk).toString('utf8') : '';
    return { fingerprint, status: this.res.statusCode, headers, body };
  }

  /** Lets the response end again; send: the held answer goes out now. */
  release(send: boolean): void {
    this.res.end = this.end;
    if (send && this.args) (this.end as (...a: unknown[]) => Response).apply(this.res, this.args);
    else if (!send) this.res.removeHeader('Location');
  }
}

/** What identifies the request a key was first sent with: method, path and query, and body bytes. */
async function fingerprintOf(ctx: ApiContext, req: Request, res: Response): Promise<string> {
  // The body as the handler read it (cached), or read now: a multipart form's limit is the largest.
  const body = await readBody(req, res, { maxBytes: ctx.config.dataUploadMaxMemorySize + 8 * ctx.config.imageMaxSize, json: false });
  return crypto.createHash('sha256').update(req.method).update('\0').update(req.originalUrl).update('\0').update(body).digest('hex');
}

function replay(res: Response, stored: StoredAnswer): void {
  res.status(stored.status);
  for (const [name, value] of Object.entries(stored.headers)) res.setHeader(name, value);
  res.setHeader(REPLAYED_HEADER, 'true');
  if (stored.body) res.send(stored.body);
  else res.end();
}

/**
 * Runs a write as an idempotent one when it carries an Idempotency-Key (else exactly as before, with
 * `ctx`): in one transaction that first claims the key (per user), then runs the write with every statement
 * on that transaction, then stores its answer with the key. A request whose key is already stored gets
 * that answer again, with Idempotent-Replayed: true, and writes nothing; one whose key another request
 * holds waits for it to end. See docs/scaling-out/idempotency.md.
 */
export async function idempotently(ctx: ApiContext, req: Request, res: Response, userId: number | null, write: (ctx: ApiContext) => Promise<void>): Promise<void> {
  const key = idempotencyKeyOf(req);
  if (key === null) return write(ctx);
  const owner = userId ?? 0;
  let held: HeldAnswer | null = null;
  let stored: StoredAnswer | null = null;
  try {
    await ctx.knex.transaction(async (trx) => {
      if (!(await claimKey(trx, owner, key, ctx.config.idempotencyKeyRetentionHours))) {
        stored = await storedAnswer(trx, owner, key);
        return;
      }
      held = new HeldAnswer(res);
      await write({ ...ctx, knex: trx });
      if (!held.ended) throw new Error('an idempotent write returned without answering');
      if (res.statusCode >= 400) throw new AnswerRefused();
      await storeAnswer(trx, owner, key, held.answer(await fingerprintOf(ctx, req, res)));
    });
  } catch (e) {
    const h = held as HeldAnswer | null;
    h?.release(e instanceof AnswerRefused);
    if (e instanceof AnswerRefused) return;
    throw e;
  }
  const h = held as HeldAnswer | null;
  if (h) return h.release(true);
  const answer = stored as StoredAnswer | null;
  if (!answer) throw new Error('an Idempotency-Key was neither claimed nor stored');
  if (answer.fingerprint !== (await fingerprintOf(ctx, req, res))) throw keyReused();
  replay(res, answer);
}
