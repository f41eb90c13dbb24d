import { judgeCached } from '../events/condition-cache';
import type { ConditionsTask, Judged } from './sandbox-protocol';

/** Judges an event rule's condition set on an event's data, in a sandbox worker thread. */
export function judgeInWorker(task: ConditionsTask): Judged {
  return judgeCached(task.ruleKey, task.conditions, JSON.parse(task.dataJson));
}
