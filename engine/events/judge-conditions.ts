import { sharedSandbox } from '../sandbox/shared-sandbox';
import type { Judged } from '../sandbox/sandbox-protocol';

/** Beyond the judging's own bound (MAX_JUDGE_MS), how long the pool waits before stopping the worker. */
const BACKSTOP_MS = 10_000;

/**
 * The one way the dispatcher judges an event rule's conditions: on a sandbox worker thread, off the event
 * loop that serves requests (a rule of many patterns once held /api/status/ for seconds per write), each
 * set compiled once per rule version there (condition-cache.ts). `busy`: the pool's queue is full; the
 * event is judged again at its next attempt.
 */
export function judgeConditions(ruleKey: string, set: unknown, data: unknown): Promise<Judged> {
  return sharedSandbox().run<Judged>(
    { kind: 'conditions', ruleKey, conditions: set, dataJson: JSON.stringify(data ?? null) },
    BACKSTOP_MS,
    (why, detail) => ({ invalid: why === 'deadline' ? `judging took longer than ${BACKSTOP_MS / 1000} seconds` : detail }),
    () => ({ busy: true }),
  );
}
