import type { GenericField, Registry, ResolvedModel } from '../definitions/registry-types';
import { ident, sql } from '../sql/fragment';
import { runRows } from '../database/run';
import type { WebhookRow } from './webhook-request';
import type { Db } from '../database/db';

/**
 * The statements the dispatcher runs on the outbox (the model playing event_outbox), each its own short
 * transaction, and the reads of the rules and webhooks its rows name.
 *
 * - A row is claimable when it is pending, due, not leased (or its lease ran out), has attempts left,
 *   and no earlier pending row of the same object and webhook would be delivered first: order is kept
 *   per (object, webhook), so one webhook failing or hanging never holds back another's deliveries. An
 *   earlier row whose rule was deleted or disabled is not waited for (its rule no longer sends it), and
 *   is claimable at once, due or not, to be skipped.
 * - A row whose lease ran out with no attempts left (its dispatcher died, or hung, on the last one) is
 *   failed, never claimed again.
 * - An outcome is written only by the attempt that holds the row (same attempt count, still pending):
 *   a dispatcher that comes back after its lease ran out and another took the row writes nothing.
 */

export interface ClaimedRow {
  id: string | number;
  event_rule_id: string | number | null;
  webhook_id: string | number | null;
  event: string;
  object_type: string;
  object_id: string | number;
  request_id: string;
  username: string;
  data: unknown;
  snapshots: unknown;
  attempts: number;
  time: Date | string;
  /** Whether its rule still exists and is enabled when it was claimed (else it is only to be skipped). */
  live: boolean;
}

export interface RuleRow {
  id: string | number;
  conditions: unknown;
  enabled: boolean;
  action_type: string;
  hook_type: string | null;
  hook_id: string | number | null;
  /** What changes when the rule is written (its last_updated): with the id, the version its compiled conditions are kept under. */
  version: string;
}

export type HookRow = WebhookRow & { id: string | number };

export type FinalStatus = 'delivered' | 'skipped' | 'failed';

/** The reason a row that ran out of attempts while leased is failed with. */
export const LEASE_EXPIRED = 'the delivery did not finish within its lease';

export class OutboxStatements {
  private readonly outbox: ResolvedModel;
  private readonly rules: ResolvedModel;
  private readonly webhooks: ResolvedModel;
  private readonly action: GenericField;

  constructor(private readonly knex: Db, registry: Registry) {
    const outbox = registry.roles.get('event_outbox');
    const rules = registry.roles.get('event_rule');
    const webhooks = registry.roles.get('webhook');
    const action = rules?.fields.get('action_object');
    if (!outbox || !rules || !webhooks || action?.kind !== 'generic_fk') throw new Error('events need models playing event_outbox, event_rule and webhook');
    this.outbox = outbox;
    this.rules = rules;
    this.webhooks = webhooks;
    this.action = action;
  }

  /** Fails the rows whose lease ran out with no attempts left; returns them. */
  async reapExhausted(maxAttempts: number): Promise<Array<{ id: string | number; attempts: number }>> {
    const o = ident(this.outbox.table);
    return runRows(this.knex, sql`UPDATE ${o} SET "status" = 'failed', "lease_until" = NULL, "response_status" = NULL,
        "last_error" = CASE WHEN "lease_until" IS NULL THEN 'no attempts left' ELSE ${LEASE_EXPIRED}::text END
      WHERE "status" = 'pending' AND "attempts" >= ${maxAttempts}::int AND ("lease_until" IS NULL OR "lease_until" < now())
      RETURNING "id", "attempts"`);
  }

  /**
   * Leases up to `limit` claimable rows (attempts + 1), oldest first, at most `room[webhook id]` (else
   * `perWebhook`) of each webhook: a webhook with no room left is not even looked at.
   */
  async claim(opts: { limit: number; maxAttempts: number; leaseMs: number; perWebhook: number; room: ReadonlyMap<number, number> }): Promise<ClaimedRow[]> {
    const o = ident(this.outbox.table);
    const r = ident(this.rules.table);
    const full = [...opts.room].filter(([, n]) => n <= 0).map(([id]) => id);
    const room = JSON.stringify(Object.fromEntries([...opts.room].map(([id, n]) => [String(id), Math.max(0, n)])));
    return runRows<ClaimedRow>(this.knex, sql`WITH "candidate" AS (
        SELECT "c"."id", "c"."webhook_id", "cr"."id" IS NOT NULL AS "live"
        FROM ${o} AS "c" LEFT JOIN ${r} AS "cr" ON "cr"."id" = "c"."event_rule_id" AND "cr"."enabled"
        WHERE "c"."status" = 'pending' AND ("c"."lease_until" IS NULL OR "c"."lease_until" < now()) AND "c"."attempts" < ${opts.maxAttempts}::int
          -- A row of a rule deleted or disabled since is no longer sent: it is skipped at once, due or not,
          -- whatever its webhook's room and whatever precedes it.
          AND ("cr"."id" IS NULL OR (
            "c"."next_attempt" <= now()
            AND ("c"."webhook_id" IS NULL OR NOT ("c"."webhook_id" = ANY(${full}::bigint[])))
            AND NOT EXISTS (SELECT 1 FROM ${o} AS "p" JOIN ${r} AS "r" ON "r"."id" = "p"."event_rule_id" AND "r"."enabled"
              WHERE "p"."status" = 'pending' AND "p"."object_type" = "c"."object_type" AND "p"."object_id" = "c"."object_id"
                AND "p"."webhook_id" IS NOT DISTINCT FROM "c"."webhook_id" AND "p"."id" < "c"."id")))
        ORDER BY "c"."id" LIMIT ${opts.limit * 4}::int FOR UPDATE OF "c" SKIP LOCKED),
      "pick" AS (
        SELECT "id", "live" FROM (SELECT "id", "webhook_id", "live", row_number() OVER (PARTITION BY "webhook_id", "live" ORDER BY "id") AS "k" FROM "candidate") AS "w"
        WHERE NOT "live" OR "webhook_id" IS NULL OR "k" <= coalesce((${room}::text::jsonb ->> "webhook_id"::text)::int, ${opts.perWebhook}::int)
        ORDER BY "id" LIMIT ${opts.limit}::int)
      UPDATE ${o} AS "o" SET "lease_until" = now() + make_interval(secs => ${opts.leaseMs / 1000}::float8), "attempts" = "o"."attempts" + 1
      FROM "pick" WHERE "o"."id" = "pick"."id"
      RETURNING "o"."id", "o"."event_rule_id", "o"."webhook_id", "o"."event", "o"."object_type", "o"."object_id", "o"."request_id", "o"."username", "o"."data", "o"."snapshots", "o"."attempts", "o"."time", "pick"."live"`);
  }

  async rulesOf(ids: number[]): Promise<RuleRow[]> {
    if (!ids.length) return [];
    const version = this.rules.lastUpdated ? sql`"last_updated"::text` : sql`md5("conditions"::text)`;
    return runRows<RuleRow>(this.knex, sql`SELECT "id", "conditions", "enabled", "action_type", ${ident(this.action.typeColumn)} AS "hook_type", ${ident(this.action.idColumn)} AS "hook_id", ${version} AS "version"
      FROM ${ident(this.rules.table)} WHERE "id" = ANY(${ids}::bigint[])`);
  }

  /** The webhook a rule names, if it names one. */
  hookOf(rule: RuleRow): number | null {
    return rule.hook_type === this.webhooks.label && rule.hook_id !== null ? Number(rule.hook_id) : null;
  }

  async webhooksOf(ids: number[]): Promise<HookRow[]> {
    if (!ids.length) return [];
    return runRows<HookRow>(this.knex, sql`SELECT "id", "payload_url", "http_method", "http_content_type", "additional_headers", "body_template", "secret", "ssl_verification", "ca_file_path"
      FROM ${ident(this.webhooks.table)} WHERE "id" = ANY(${ids}::bigint[])`);
  }

  /** Ends the row's attempt for good; false when the attempt no longer holds the row. */
  async finish(row: ClaimedRow, status: FinalStatus, responseStatus: number | null, error: string): Promise<boolean> {
    const done = await runRows(this.knex, sql`UPDATE ${ident(this.outbox.table)} SET "status" = ${status}::text, "lease_until" = NULL, "response_status" = ${responseStatus}::int,
        "last_error" = ${error.slice(0, 2000)}::text, "delivered" = CASE WHEN ${status}::text = 'delivered' THEN now() END
      WHERE "id" = ${Number(row.id)}::bigint AND "attempts" = ${row.attempts}::int AND "status" = 'pending' RETURNING 1`);
    return done.length > 0;
  }

  /** Ends the row's attempt as failed for now: due again after `waitMs`. */
  async retryLater(row: ClaimedRow, waitMs: number, responseStatus: number | null, error: string): Promise<boolean> {
    const done = await runRows(this.knex, sql`UPDATE ${ident(this.outbox.table)} SET "lease_until" = NULL, "next_attempt" = now() + make_interval(secs => ${waitMs / 1000}::float8),
        "response_status" = ${responseStatus}::int, "last_error" = ${error.slice(0, 2000)}::text
      WHERE "id" = ${Number(row.id)}::bigint AND "attempts" = ${row.attempts}::int AND "status" = 'pending' RETURNING 1`);
    return done.length > 0;
  }
}
