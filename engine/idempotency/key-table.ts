import type { RoutineSpec } from '../migrations/snapshot-types';

/** Where Idempotency-Keys and the answers they stored are kept (engine/idempotency/key-store.ts). */
export const IDEMPOTENCY_KEY_TABLE = 'patchbay_idempotency_key';

/**
 * One row per (user, key): claimed by the write's first statement and filled with its answer before it
 * commits, so the row exists exactly when the write does. user_id 0 stands for an anonymous caller.
 */
export const IDEMPOTENCY_KEY_ROUTINE: RoutineSpec = {
  create: [
    `CREATE TABLE "${IDEMPOTENCY_KEY_TABLE}" (
  "user_id" bigint NOT NULL,
  "key" text NOT NULL,
  "fingerprint" text NOT NULL,
  "status" integer NOT NULL,
  "headers" jsonb NOT NULL,
  "body" text NOT NULL,
  "created" timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY ("user_id", "key")
)`,
    `CREATE INDEX "${IDEMPOTENCY_KEY_TABLE}_created" ON "${IDEMPOTENCY_KEY_TABLE}" ("created")`,
  ],
  drop: [`DROP TABLE "${IDEMPOTENCY_KEY_TABLE}"`],
};
