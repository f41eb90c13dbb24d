import type { Knex } from 'knex';
import type { GenericField, Registry, ResolvedModel } from '../definitions/registry-types';
import type { Config } from '../config';
import { ident, sql } from '../sql/fragment';
import { runRows } from '../query/statements/run';
import { conditionsHold, InvalidCondition } from './conditions';
import { deliver, type EventContext, type Outcome, type WebhookRow } from './deliver';
import { pruneChangeLog } from './retention';
import { templateLimits } from '../templates/render-template';

/**
 * The dispatcher of the transactional outbox (the model playing event_outbox). Events are stored by the
 * database in the transaction of the write that raised them; this delivers them after commit.
 *
 * - Claiming: one statement takes up to `batch` pending rows due now, `FOR UPDATE SKIP LOCKED`, and
 *   leases them (lease_until, attempts + 1) in its own short transaction. Any number of dispatchers (every
 *   server process, `patchbay worker`s, on several hosts) share the outbox: a row is leased by one.
 * - Order: a row is claimable only when no earlier pending row exists for the same object, so the events
 *   of one object are delivered in commit order (rows of one object are written under its row lock, so
 *   their ids follow commit order), and a failing one holds the later ones back.
 * - At least once: the HTTP request is made after the lease commits; the outcome is written after it
 *   answers. A dispatcher killed in between leaves the row leased; when the lease runs out another
 *   dispatcher sends it again.
 * - Retries: a failed attempt is due again after retryBase * 2^(attempts - 1) (at most an hour); after
 *   maxAttempts the row is failed, with its last error and response status, in /api/extras/event-deliveries/.
 */

export interface DispatcherOptions {
  knex: Knex;
  registry: Registry;
  config: Config;
  /** Rows claimed per statement. */
  batch?: number;
  log?: (line: string) => void;
}

interface Claimed {
  id: string | number;
  event_rule_id: string | number | null;
  event: string;
  object_type: string;
  object_id: string | number;
  request_id: string;
  username: string;
  data: unknown;
  snapshots: unknown;
  attempts: number;
  time: Date | string;
}

interface RuleRow {
  id: string | number;
  conditions: unknown;
  action_type: string;
  hook_type: string | null;
  hook_id: string | number | null;
}

const MAX_BACKOFF_MS = 3_600_000;

export class Dispatcher {
  private running = false;
  private timer: NodeJS.Timeout | null = null;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private lastPrune = 0;
  private readonly outbox: ResolvedModel;
  private readonly rules: ResolvedModel;
  private readonly webhooks: ResolvedModel;
  private readonly action: GenericField;

  constructor(private readonly opts: DispatcherOptions) {
    const { registry } = opts;
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

  /** How long a claimed row is left to its dispatcher before another may send it again. */
  private get leaseMs(): number {
    return this.opts.config.webhookTimeoutMs * 2 + 5000;
  }

  /** Claims due rows and delivers them; the number of rows it handled. */
  async runOnce(): Promise<number> {
    const o = ident(this.outbox.table);
    const batch = this.opts.batch ?? 50;
    const claimed = await runRows<Claimed>(this.opts.knex, sql`UPDATE ${o} AS "o" SET "lease_until" = now() + make_interval(secs => ${this.leaseMs / 1000}::float8), "attempts" = "o"."attempts" + 1
      FROM (SELECT "c"."id" FROM ${o} AS "c"
            WHERE "c"."status" = 'pending' AND "c"."next_attempt" <= now() AND ("c"."lease_until" IS NULL OR "c"."lease_until" < now())
              AND NOT EXISTS (SELECT 1 FROM ${o} AS "p" WHERE "p"."status" = 'pending' AND "p"."object_type" = "c"."object_type" AND "p"."object_id" = "c"."object_id" AND "p"."id" < "c"."id")
            ORDER BY "c"."id" LIMIT ${batch}::int FOR UPDATE SKIP LOCKED) AS "pick"
      WHERE "o"."id" = "pick"."id"
      RETURNING "o"."id", "o"."event_rule_id", "o"."event", "o"."object_type", "o"."object_id", "o"."request_id", "o"."username", "o"."data", "o"."snapshots", "o"."attempts", "o"."time"`);
    if (!claimed.length) return 0;
    const ruleIds = [...new Set(claimed.map((c) => c.event_rule_id).filter((x): x is string | number => x !== null).map(Number))];
    const rules = await runRows<RuleRow>(this.opts.knex, sql`SELECT "id", "conditions", "action_type", ${ident(this.action.typeColumn)} AS "hook_type", ${ident(this.action.idColumn)} AS "hook_id"
      FROM ${ident(this.rules.table)} WHERE "id" = ANY(${ruleIds}::bigint[])`);
    const hookIds = rules.filter((r) => r.hook_type === this.webhooks.label && r.hook_id !== null).map((r) => Number(r.hook_id));
    const hooks = await runRows<WebhookRow & { id: string | number }>(this.opts.knex, sql`SELECT "id", "payload_url", "http_method", "http_content_type", "additional_headers", "body_template", "secret", "ssl_verification", "ca_file_path"
      FROM ${ident(this.webhooks.table)} WHERE "id" = ANY(${hookIds}::bigint[])`);
    await Promise.all(claimed.map((row) => this.handle(row, rules.find((r) => Number(r.id) === Number(row.event_rule_id)), hooks)));
    return claimed.length;
  }

  private async handle(row: Claimed, rule: RuleRow | undefined, hooks: Array<WebhookRow & { id: string | number }>): Promise<void> {
    if (!rule) return this.finish(row, 'skipped', null, 'the event rule was deleted');
    try {
      if (!conditionsHold(rule.conditions, row.data)) return this.finish(row, 'skipped', null, '');
    } catch (e) {
      if (e instanceof InvalidCondition) return this.finish(row, 'skipped', null, `conditions could not be judged: ${e.message}`);
      throw e;
    }
    if (rule.action_type !== 'webhook') return this.finish(row, 'failed', null, `action type ${rule.action_type} is not supported by Patchbay`);
    const hook = hooks.find((h) => Number(h.id) === Number(rule.hook_id));
    if (!hook) return this.finish(row, 'failed', null, 'the webhook was deleted');
    const context: EventContext = {
      event: row.event,
      timestamp: new Date(row.time).toISOString(),
      model: row.object_type.split('.')[1] ?? row.object_type,
      username: row.username,
      request_id: row.request_id,
      data: row.data,
      snapshots: row.snapshots,
    };
    const { config } = this.opts;
    let outcome: Outcome;
    try {
      outcome = await deliver(hook, context, templateLimits(config), config.webhookTimeoutMs);
    } catch (e) {
      outcome = { ok: false, status: null, error: (e as Error).message };
    }
    if (outcome.ok) return this.finish(row, 'delivered', outcome.status, '');
    if (row.attempts >= config.eventsMaxAttempts) return this.finish(row, 'failed', outcome.status, outcome.error);
    const wait = Math.min(MAX_BACKOFF_MS, config.eventsRetryBaseMs * 2 ** (row.attempts - 1));
    await runRows(this.opts.knex, sql`UPDATE ${ident(this.outbox.table)} SET "lease_until" = NULL, "next_attempt" = now() + make_interval(secs => ${wait / 1000}::float8),
      "response_status" = ${outcome.status}::int, "last_error" = ${outcome.error.slice(0, 2000)}::text WHERE "id" = ${Number(row.id)}::bigint`);
  }

  private async finish(row: Claimed, status: 'delivered' | 'skipped' | 'failed', responseStatus: number | null, error: string): Promise<void> {
    await runRows(this.opts.knex, sql`UPDATE ${ident(this.outbox.table)} SET "status" = ${status}::text, "lease_until" = NULL, "response_status" = ${responseStatus}::int,
      "last_error" = ${error.slice(0, 2000)}::text, "delivered" = CASE WHEN ${status}::text = 'delivered' THEN now() END WHERE "id" = ${Number(row.id)}::bigint`);
    if (status === 'failed') this.opts.log?.(`event delivery ${String(row.id)} failed after ${row.attempts} attempts: ${error}`);
  }

  /** Runs until stop(): delivers while there is work, then looks again every eventsPollMs; prunes the change log hourly. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        let handled = 0;
        try {
          if (Date.now() - this.lastPrune > 3_600_000) {
            this.lastPrune = Date.now();
            await pruneChangeLog(this.opts.knex, this.opts.registry, this.opts.config.changelogRetentionDays);
          }
          handled = await this.runOnce();
        } catch (e) {
          // The database may be restarting: look again later.
          this.opts.log?.(`event dispatch: ${(e as Error).message}`);
        }
        if (!this.running) break;
        if (handled) continue;
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          this.timer = setTimeout(resolve, this.opts.config.eventsPollMs);
        });
      }
    })();
  }

  /** Stops looking for work and waits for the deliveries under way. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.wake?.();
    await this.loop;
  }
}
