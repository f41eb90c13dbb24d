import { conditionsHold, InvalidCondition } from '../events/conditions';
import type { ConditionsTask, Judged } from './sandbox-protocol';

/** Judges an event rule's condition set on an event's data, in a sandbox worker thread. */
export function judgeInWorker(task: ConditionsTask): Judged {
  try {
    return { holds: conditionsHold(task.conditions, JSON.parse(task.dataJson)) };
  } catch (e) {
    if (e instanceof InvalidCondition) return { invalid: e.message };
    return { invalid: (e as Error).message };
  }
}
