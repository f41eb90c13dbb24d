import type { Db, DbTransaction } from '../database/db';
import { IDEMPOTENCY_KEY_TABLE } from './key-table';

/** An answer as it was sent: what a retry with the same key gets again. */
export interface StoredAnswer {
  fingerprint: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

const T = `"${IDEMPOTENCY_KEY_TABLE}"`;

/**
 * Claims the key as the write's first statement. A request holding the same key in a transaction still
 * running makes this wait (the primary key's uniqueness check) until that one ends: true when this
 * request now holds the key (there was none, the other rolled back, or the stored one is older than the
 * retention and not yet pruned), false when an answer is stored. The placeholder row is filled by
 * storeAnswer before the write commits; no one ever sees it unfilled.
 */
export async function claimKey(trx: DbTransaction, userId: number, key: string, retentionHours: number): Promise<boolean> {
  const claimed = await trx.run(
    {
      text: `INSERT INTO ${T} AS "k" ("user_id", "key", "fingerprint", "status", "headers", "body") VALUES ($1, $2, '', 0, '{}', '')
  ON CONFLICT ("user_id", "key") DO UPDATE SET "fingerprint" = '', "status" = 0, "headers" = '{}', "body" = '', "created" = now()
  WHERE "k"."created" < now() - make_interval(hours => $3::int)
  RETURNING 1 AS "claimed"`,
      values: [userId, key, retentionHours],
    },
    { prepared: true },
  );
  return claimed.rows.length === 1;
}

/** The answer a committed write stored under the key. */
export async function storedAnswer(trx: DbTransaction, userId: number, key: string): Promise<StoredAnswer | null> {
  const rows = await trx.run<StoredAnswer>(
    { text: `SELECT "fingerprint", "status", "headers", "body" FROM ${T} WHERE "user_id" = $1 AND "key" = $2`, values: [userId, key] },
    { prepared: true },
  );
  return rows.rows[0] ?? null;
}

/** Fills the claimed row with the write's answer, in the write's transaction. */
export async function storeAnswer(trx: DbTransaction, userId: number, key: string, answer: StoredAnswer): Promise<void> {
  await trx.run(
    {
      text: `UPDATE ${T} SET "fingerprint" = $3, "status" = $4, "headers" = $5::jsonb, "body" = $6 WHERE "user_id" = $1 AND "key" = $2`,
      values: [userId, key, answer.fingerprint, answer.status, JSON.stringify(answer.headers), answer.body],
    },
    { prepared: true },
  );
}

/** Removes keys older than the retention (hours); how many went. Run with the change log's pruning. */
export async function pruneKeys(db: Db, hours: number): Promise<number> {
  const gone = await db.run<{ n: number }>({
    text: `WITH "gone" AS (DELETE FROM ${T} WHERE "created" < now() - make_interval(hours => $1::int) RETURNING 1) SELECT count(*)::int AS "n" FROM "gone"`,
    values: [hours],
  });
  return gone.rows[0]?.n ?? 0;
}
