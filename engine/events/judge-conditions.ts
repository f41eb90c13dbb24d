import { compileConditions, InvalidCondition, type CompiledConditions } from './conditions';

/**
 * The one way the dispatcher judges an event rule's conditions. A set is compiled once per rule version
 * (ruleKey: the rule's id and last_updated), so a rule of many patterns costs their matching per event,
 * not their compiling. Judged in this process for now; the body moves to the worker-thread pool
 * (engine/sandbox/) without its callers changing: everything crossing it is plain JSON.
 */

type Entry = { compiled: CompiledConditions } | { invalid: string };

const cache = new Map<string, Entry>();
/** Rule versions kept compiled; the least recently used goes first. */
const MAX_CACHED = 256;

function entryFor(ruleKey: string, set: unknown): Entry {
  const hit = cache.get(ruleKey);
  if (hit) {
    // Map keeps insertion order: re-inserting marks it as the most recently used.
    cache.delete(ruleKey);
    cache.set(ruleKey, hit);
    return hit;
  }
  let entry: Entry;
  try {
    entry = { compiled: compileConditions(set) };
  } catch (e) {
    if (!(e instanceof InvalidCondition)) throw e;
    entry = { invalid: e.message };
  }
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
  cache.set(ruleKey, entry);
  return entry;
}

/** Whether the rule's conditions hold on the event's data, or why they cannot be judged. */
export async function judgeConditions(ruleKey: string, set: unknown, data: unknown): Promise<{ holds: boolean } | { invalid: string }> {
  const entry = entryFor(ruleKey, set);
  if ('invalid' in entry) return { invalid: entry.invalid };
  try {
    return { holds: entry.compiled.holds(data) };
  } catch (e) {
    if (e instanceof InvalidCondition) return { invalid: e.message };
    throw e;
  }
}
