import { linearRegex } from '../validation/linear-regex';

/**
 * NetBox's condition sets (netbox/extras/conditions.py), judged on an event's data: {"and": [...]} or
 * {"or": [...]} of conditions {"attr": "dotted.path", "value": v, "op": "eq", "negate": false} and
 * nested sets. A path through a list reads the key of each element (tags.slug gives every tag's slug).
 * Regular expressions run on RE2 (linear time) and match at the start, as Python's re.match.
 *
 * A pure module (plain data in, plain data out; nothing of the host): a set is compiled once — its
 * patterns, paths and values prepared — and the compiled set judges any number of events, so it can
 * run in a worker thread as well as here. The bounds below keep one set's cost per event small
 * whatever a caller writes; they are far above what NetBox's users write (a handful of conditions).
 */

/** Most conditions (and nested sets) one set may hold, all levels counted. */
export const MAX_CONDITIONS = 200;
/** Most bytes the set may take as JSON. */
export const MAX_SET_BYTES = 65_536;
/** Most levels of sets: the top one and up to four nested, as the field's JSON schema allows. */
export const MAX_DEPTH = 5;
/** Longest text a regex is matched against (RE2 is linear in it, times the pattern's size): a longer one cannot be judged. */
export const MAX_REGEX_TEXT = 16_384;
/** Milliseconds judging one event may take (checked between conditions): past it, the event cannot be judged. */
export const MAX_JUDGE_MS = 500;

const OPS = ['eq', 'gt', 'gte', 'lt', 'lte', 'in', 'contains', 'regex'] as const;
type Op = (typeof OPS)[number];

/** A condition set that cannot be used, or data it cannot be judged on (a path the data does not have, a value of the wrong type). */
export class InvalidCondition extends Error {}

type Json = unknown;

/** A compiled condition set: judges an event's data (throws InvalidCondition when it cannot be judged). */
export interface CompiledConditions {
  holds(data: Json): boolean;
}

/** When the judging of one event must end (performance.now() time). */
interface Budget {
  until: number;
}

type Judge = (data: Json, budget: Budget) => boolean;

function isObject(v: Json): v is Record<string, Json> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function has(o: Record<string, Json>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key);
}

/** Python's == on JSON values (1 == 1.0; dicts equal whatever their key order). */
function equal(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => equal(x, b[i]));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => has(b, k) && equal(a[k], b[k]));
  }
  return false;
}

/** The value at a dotted path; through a list, the key of each element. */
function reader(attr: string): (data: Json) => Json {
  const keys = attr.split('.');
  return (data) => {
    let cur: Json = data;
    for (const key of keys) {
      const get = (obj: Json): Json => {
        const o = isObject(obj) ? obj : {};
        if (!has(o, key)) throw new InvalidCondition(`Invalid key path: ${attr}`);
        return o[key];
      };
      cur = Array.isArray(cur) ? cur.map(get) : get(cur);
    }
    return cur;
  };
}

function comparer(op: 'gt' | 'gte' | 'lt' | 'lte', target: number): (value: Json) => boolean {
  return (value) => {
    if (typeof value !== 'number') throw new InvalidCondition(`cannot compare ${JSON.stringify(value)} with ${target}`);
    return op === 'gt' ? value > target : op === 'gte' ? value >= target : op === 'lt' ? value < target : value <= target;
  };
}

/** The test of one op against its (already checked) value; throws InvalidCondition with the reason the value does not fit the op. */
function tester(op: Op, target: Json): (value: Json) => boolean {
  switch (op) {
    case 'eq':
      return (value) => equal(value, target);
    case 'in': {
      if (!Array.isArray(target)) throw new InvalidCondition('op "in" needs a list value');
      return (value) => target.some((t) => equal(value, t));
    }
    case 'contains':
      return (value) => {
        if (Array.isArray(value)) return value.some((v) => equal(v, target));
        if (typeof value === 'string' && typeof target === 'string') return value.includes(target);
        if (isObject(value) && typeof target === 'string') return has(value, target);
        throw new InvalidCondition(`cannot look for ${JSON.stringify(target)} in ${JSON.stringify(value)}`);
      };
    case 'regex': {
      if (typeof target !== 'string') throw new InvalidCondition('op "regex" needs a string value');
      const re = linearRegex(target);
      if (typeof re === 'string') throw new InvalidCondition(`invalid regular expression: ${re}`);
      return (value) => {
        if (typeof value !== 'string') throw new InvalidCondition('"regex" compares a string with a pattern');
        if (value.length > MAX_REGEX_TEXT) throw new InvalidCondition(`"regex" is not matched against text longer than ${MAX_REGEX_TEXT} characters`);
        return re.matcher(value).lookingAt();
      };
    }
    default:
      if (typeof target !== 'number') throw new InvalidCondition(`op "${op}" needs a number value`);
      return comparer(op, target);
  }
}

/** Walks a set, checking and compiling it; `where` names the set's position for messages (and[2].or[0]). */
class Compiler {
  private count = 0;

  set(set: Json, where: string, depth: number): Judge {
    const at = where ? `${where}: ` : '';
    if (!isObject(set)) throw new InvalidCondition(`${at}a condition set is {"and": [...]} or {"or": [...]}`);
    const keys = Object.keys(set);
    const logic = keys[0];
    if (keys.length !== 1 || (logic !== 'and' && logic !== 'or')) throw new InvalidCondition(`${at}a condition set has one key, "and" or "or"`);
    if (depth > MAX_DEPTH) throw new InvalidCondition(`${at}condition sets nest at most ${MAX_DEPTH - 1} deep`);
    const items = set[logic];
    if (!Array.isArray(items)) throw new InvalidCondition(`${at}"${logic}" must be a list`);
    const judges = items.map((item, i) => this.item(item, `${where ? `${where}.` : ''}${logic}[${i}]`, depth));
    return logic === 'and' ? (data, budget) => judges.every((j) => j(data, budget)) : (data, budget) => judges.some((j) => j(data, budget));
  }

  private item(item: Json, where: string, depth: number): Judge {
    if (++this.count > MAX_CONDITIONS) throw new InvalidCondition(`${where}: a condition set holds at most ${MAX_CONDITIONS} conditions`);
    if (isObject(item) && (has(item, 'and') || has(item, 'or'))) return this.set(item, where, depth + 1);
    if (!isObject(item) || typeof item.attr !== 'string' || item.attr === '' || !has(item, 'value')) throw new InvalidCondition(`${where}: a condition needs "attr" (a dotted path) and "value"`);
    const op = item.op ?? 'eq';
    if (!OPS.includes(op as Op)) throw new InvalidCondition(`${where}: unknown op "${String(op)}"`);
    if (item.negate !== undefined && typeof item.negate !== 'boolean') throw new InvalidCondition(`${where}: "negate" is true or false`);
    let test: (value: Json) => boolean;
    try {
      test = tester(op as Op, item.value);
    } catch (e) {
      if (e instanceof InvalidCondition) throw new InvalidCondition(`${where}: ${e.message}`);
      throw e;
    }
    const read = reader(item.attr);
    const negate = item.negate === true;
    return (data, budget) => {
      if (performance.now() > budget.until) throw new InvalidCondition(`judging took longer than ${MAX_JUDGE_MS} ms`);
      return test(read(data)) !== negate;
    };
  }
}

/** The set compiled (null: no conditions, always holds); throws InvalidCondition naming the condition when the set cannot be used. */
export function compileConditions(set: Json): CompiledConditions {
  if (set === null || set === undefined) return { holds: () => true };
  const bytes = new TextEncoder().encode(JSON.stringify(set)).length;
  if (bytes > MAX_SET_BYTES) throw new InvalidCondition(`a condition set takes at most ${MAX_SET_BYTES} bytes as JSON (this one takes ${bytes})`);
  const judge = new Compiler().set(set, '', 1);
  return { holds: (data) => judge(data, { until: performance.now() + MAX_JUDGE_MS }) };
}

/** Why a condition set cannot be stored (its shape, its size, a regex that does not compile, a value of the wrong type for its op, naming the condition: and[2].or[0]), or null. */
export function conditionProblem(set: Json): string | null {
  try {
    compileConditions(set);
    return null;
  } catch (e) {
    if (e instanceof InvalidCondition) return e.message;
    throw e;
  }
}
