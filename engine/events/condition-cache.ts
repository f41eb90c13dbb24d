import { compileConditions, InvalidCondition, type CompiledConditions } from './conditions';

/**
 * Event-rule condition sets, compiled once per rule version (ruleKey: the rule's id and last_updated) and
 * judged on an event's data, so a rule of many patterns costs their matching per event, not their
 * compiling. Runs in a sandbox worker thread (engine/sandbox/judge-in-worker.ts), each worker keeping its
 * own cache; the dispatcher reaches it through judge-conditions.ts.
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
export function judgeCached(ruleKey: string, set: unknown, data: unknown): { holds: boolean } | { invalid: string } {
  const entry = entryFor(ruleKey, set);
  if ('invalid' in entry) return { invalid: entry.invalid };
  try {
    return { holds: entry.compiled.holds(data) };
  } catch (e) {
    if (e instanceof InvalidCondition) return { invalid: e.message };
    throw e;
  }
}

/** Rule versions this thread keeps compiled (the server's own thread keeps none: judging runs in the sandbox). */
export function cachedRuleVersions(): number {
  return cache.size;
}
