import type { Registry } from '../definitions/registry-types';
import type { Config } from '../config';
import { deliver, type DeliveryLimits, type EventContext, type Outcome } from './deliver';
import { judgeConditions } from './judge-conditions';
import { networkPolicy } from './network-policy';
import { OutboxStatements, type ClaimedRow, type FinalStatus, type HookRow, type RuleRow } from './outbox-statements';
import { pruneChangeLog } from './retention';
import { pruneKeys } from '../idempotency/key-store';
import { templateLimits } from '../sandbox/render-template';
import type { Db } from '../database/db';

/**
 * The dispatcher of the transactional outbox. Events are stored by the database in the transaction of
 * the write that raised them; this delivers them after commit (engine/events/outbox-statements.ts says
 * which rows it may take).
 *
 * - Slots: at most eventsConcurrency deliveries under way, eventsPerWebhook of them to one webhook. The
 *   loop claims rows for the free slots and starts each delivery on its own; as soon as one finishes it
 *   claims again. No delivery waits for another, so a receiver that never answers holds its own slots
 *   until its deadline, and nothing else.
 * - Claiming: one statement leases claimable rows (lease_until, attempts + 1), `FOR UPDATE SKIP LOCKED`.
 *   Any number of dispatchers (every server process, `patchbay worker`s, on several hosts) share the
 *   outbox: a row is leased by one.
 * - Bounded attempts: each delivery runs under deadlines (its templates, its request), so it ends within
 *   its lease; a dispatcher that dies or hangs leaves the lease to run out, and the row is taken again —
 *   unless it had no attempts left: then it is failed, with the reason.
 * - Retries: a failed attempt is due again after retryBase * 2^(attempts - 1) (at most an hour); after
 *   maxAttempts the row is failed, with its last error and response status, in /api/extras/event-deliveries/.
 */

export interface DispatcherOptions {
  knex: Db;
  registry: Registry;
  config: Config;
  /** Most rows claimed per statement. */
  batch?: number;
  log?: (line: string) => void;
}

const MAX_BACKOFF_MS = 3_600_000;
/** Time a dispatcher keeps beyond a delivery's own deadlines, to write its outcome. */
const LEASE_MARGIN_MS = 5_000;

export class Dispatcher {
  private running = false;
  private timer: NodeJS.Timeout | null = null;
  private wake: (() => void) | null = null;
  /** Set when a slot frees while the loop is not napping: it looks again at once. */
  private woken = false;
  private loop: Promise<void> | null = null;
  private lastPrune = 0;
  private lastReap = 0;
  private readonly statements: OutboxStatements;
  private readonly limits: DeliveryLimits;
  private readonly inFlight = new Set<Promise<void>>();
  /** Deliveries under way per webhook id. */
  private readonly perHook = new Map<number, number>();

  constructor(private readonly opts: DispatcherOptions) {
    this.statements = new OutboxStatements(opts.knex, opts.registry);
    const { config } = opts;
    this.limits = {
      templates: { ...templateLimits(config), timeoutMs: this.renderBudgetMs },
      deadlineMs: config.webhookTimeoutMs,
      maxResponse: config.webhookMaxResponse,
      policy: networkPolicy(config.webhookAllowNetworks, config.webhookDenyNetworks),
      ca: { webhookCaDir: config.webhookCaDir, webhookCaMaxSize: config.webhookCaMaxSize },
    };
  }

  /** Milliseconds the templates of one delivery may take together (without a template limit: the request's deadline). */
  private get renderBudgetMs(): number {
    return this.opts.config.templateTimeoutMs || this.opts.config.webhookTimeoutMs;
  }

  /** How long a claimed row is left to its dispatcher before another may take it: longer than any delivery may take. */
  private get leaseMs(): number {
    return this.renderBudgetMs + this.opts.config.webhookTimeoutMs + LEASE_MARGIN_MS;
  }

  private get free(): number {
    return Math.min(this.opts.batch ?? 50, this.opts.config.eventsConcurrency - this.inFlight.size);
  }

  /** Fails rows left with no attempts by dispatchers that died or hung on them (at most once per poll interval). */
  private async reap(): Promise<void> {
    if (Date.now() - this.lastReap < this.opts.config.eventsPollMs) return;
    this.lastReap = Date.now();
    for (const row of await this.statements.reapExhausted(this.opts.config.eventsMaxAttempts)) {
      this.opts.log?.(`event delivery ${String(row.id)} failed after ${row.attempts} attempts: the last did not finish within its lease`);
    }
  }

  /** Claims rows for the free slots and starts their deliveries; how many it claimed of how many it asked for. */
  private async claimAndStart(): Promise<{ asked: number; claimed: number }> {
    const asked = this.free;
    if (asked <= 0) return { asked, claimed: 0 };
    const { config } = this.opts;
    const room = new Map([...this.perHook].map(([id, n]) => [id, config.eventsPerWebhook - n]));
    const rows = await this.statements.claim({ limit: asked, maxAttempts: config.eventsMaxAttempts, leaseMs: this.leaseMs, perWebhook: config.eventsPerWebhook, room });
    if (!rows.length) return { asked, claimed: 0 };
    const ruleIds = [...new Set(rows.map((c) => c.event_rule_id).filter((x): x is string | number => x !== null).map(Number))];
    const rules = await this.statements.rulesOf(ruleIds);
    const hookIds = new Set<number>();
    for (const row of rows) if (row.webhook_id !== null) hookIds.add(Number(row.webhook_id));
    for (const rule of rules) {
      const id = this.statements.hookOf(rule);
      if (id !== null) hookIds.add(id);
    }
    const hooks = await this.statements.webhooksOf([...hookIds]);
    for (const row of rows) this.startOne(row, rules.find((r) => Number(r.id) === Number(row.event_rule_id)), hooks);
    return { asked, claimed: rows.length };
  }

  private startOne(row: ClaimedRow, rule: RuleRow | undefined, hooks: HookRow[]): void {
    // A row only to be skipped takes no room of its webhook.
    const hookId = row.webhook_id === null || !row.live ? null : Number(row.webhook_id);
    if (hookId !== null) this.perHook.set(hookId, (this.perHook.get(hookId) ?? 0) + 1);
    const job = this.handle(row, rule, hooks)
      .catch((e: Error) => this.opts.log?.(`event delivery ${String(row.id)}: ${e.message}`))
      .finally(() => {
        this.inFlight.delete(job);
        if (hookId !== null) {
          const n = (this.perHook.get(hookId) ?? 1) - 1;
          if (n > 0) this.perHook.set(hookId, n);
          else this.perHook.delete(hookId);
        }
        this.nudge();
      });
    this.inFlight.add(job);
  }

  private async handle(row: ClaimedRow, rule: RuleRow | undefined, hooks: HookRow[]): Promise<void> {
    if (!rule) return this.finish(row, 'skipped', null, 'the event rule was deleted');
    if (!rule.enabled) return this.finish(row, 'skipped', null, 'the event rule is disabled');
    const judged = await judgeConditions(`${String(rule.id)}:${rule.version}`, rule.conditions, row.data);
    if ('busy' in judged) return this.failedAttempt(row, null, 'the sandbox that judges conditions was busy');
    if ('invalid' in judged) return this.finish(row, 'skipped', null, `conditions could not be judged: ${judged.invalid}`);
    if (!judged.holds) return this.finish(row, 'skipped', null, '');
    if (rule.action_type !== 'webhook') return this.finish(row, 'failed', null, `action type ${rule.action_type} is not supported by Patchbay`);
    // The webhook the rule named when the event was stored (rows stored before that was kept: the rule's).
    const hookId = row.webhook_id !== null ? Number(row.webhook_id) : this.statements.hookOf(rule);
    const hook = hooks.find((h) => Number(h.id) === hookId);
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
    let outcome: Outcome;
    try {
      outcome = await deliver(hook, context, this.limits);
    } catch (e) {
      outcome = { ok: false, status: null, error: (e as Error).message };
    }
    if (outcome.ok) return this.finish(row, 'delivered', outcome.status, '');
    return this.failedAttempt(row, outcome.status, outcome.error);
  }

  /** An attempt that did not deliver: due again after the backoff, or failed when it was the last. */
  private async failedAttempt(row: ClaimedRow, responseStatus: number | null, error: string): Promise<void> {
    const { config } = this.opts;
    if (row.attempts >= config.eventsMaxAttempts) return this.finish(row, 'failed', responseStatus, error);
    const wait = Math.min(MAX_BACKOFF_MS, config.eventsRetryBaseMs * 2 ** (row.attempts - 1));
    await this.statements.retryLater(row, wait, responseStatus, error);
  }

  private async finish(row: ClaimedRow, status: FinalStatus, responseStatus: number | null, error: string): Promise<void> {
    const mine = await this.statements.finish(row, status, responseStatus, error);
    if (mine && status === 'failed') this.opts.log?.(`event delivery ${String(row.id)} failed after ${row.attempts} attempts: ${error}`);
  }

  private nudge(): void {
    if (this.wake) this.wake();
    else this.woken = true;
  }

  private nap(ms: number): Promise<void> {
    if (this.woken || !this.running) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      this.wake = () => {
        this.wake = null;
        if (this.timer) clearTimeout(this.timer);
        this.timer = null;
        resolve();
      };
      this.timer = setTimeout(() => this.wake?.(), ms);
    });
  }

  /**
   * Claims and delivers until stop(): looks again at once while claims fill the free slots or a delivery
   * finishes, else every eventsPollMs; prunes the change log and expired Idempotency-Keys hourly.
   */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        let more = false;
        try {
          if (Date.now() - this.lastPrune > 3_600_000) {
            this.lastPrune = Date.now();
            await pruneChangeLog(this.opts.knex, this.opts.registry, this.opts.config.changelogRetentionDays);
            await pruneKeys(this.opts.knex, this.opts.config.idempotencyKeyRetentionHours);
          }
          await this.reap();
          const { asked, claimed } = await this.claimAndStart();
          more = asked > 0 && claimed === asked;
        } catch (e) {
          // The database may be restarting: look again later.
          this.opts.log?.(`event dispatch: ${(e as Error).message}`);
        }
        if (!this.running) break;
        if (!more) await this.nap(this.opts.config.eventsPollMs);
      }
      await Promise.allSettled([...this.inFlight]);
    })();
  }

  /** Stops claiming and waits for the deliveries under way (each ends within its deadline). */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }
}
