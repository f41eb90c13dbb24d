import { linearRegex } from '../validation/linear-regex';

/**
 * NetBox's condition sets (netbox/extras/conditions.py), judged on an event's data: {"and": [...]} or
 * {"or": [...]} of conditions {"attr": "dotted.path", "value": v, "op": "eq", "negate": false} and
 * nested sets. A path through a list reads the key of each element (tags.slug gives every tag's slug).
 * Regular expressions run on RE2 (linear time) and match at the start, as Python's re.match.
 */

const OPS = ['eq', 'gt', 'gte', 'lt', 'lte', 'in', 'contains', 'regex'] as const;
type Op = (typeof OPS)[number];

/** A condition that cannot be judged (a path the data does not have, a value of the wrong type). */
export class InvalidCondition extends Error {}

type Json = unknown;

function isObject(v: Json): v is Record<string, Json> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function read(data: Json, attr: string): Json {
  let cur: Json = data;
  for (const key of attr.split('.')) {
    const get = (obj: Json): Json => {
      const o = isObject(obj) ? obj : {};
      if (!Object.prototype.hasOwnProperty.call(o, key)) throw new InvalidCondition(`Invalid key path: ${attr}`);
      return o[key];
    };
    cur = Array.isArray(cur) ? cur.map(get) : get(cur);
  }
  return cur;
}

/** Python's == on JSON values. */
function equal(a: Json, b: Json): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function compare(value: Json, target: Json, op: 'gt' | 'gte' | 'lt' | 'lte'): boolean {
  if (typeof value !== typeof target || (typeof value !== 'number' && typeof value !== 'string')) throw new InvalidCondition(`cannot compare ${JSON.stringify(value)} with ${JSON.stringify(target)}`);
  const a = value as number | string;
  const b = target as number | string;
  return op === 'gt' ? a > b : op === 'gte' ? a >= b : op === 'lt' ? a < b : a <= b;
}

function judge(value: Json, op: Op, target: Json): boolean {
  switch (op) {
    case 'eq':
      return equal(value, target);
    case 'in':
      if (!Array.isArray(target)) throw new InvalidCondition('"in" needs a list value');
      return target.some((t) => equal(value, t));
    case 'contains':
      if (Array.isArray(value)) return value.some((v) => equal(v, target));
      if (typeof value === 'string' && typeof target === 'string') return value.includes(target);
      if (isObject(value) && typeof target === 'string') return Object.prototype.hasOwnProperty.call(value, target);
      throw new InvalidCondition(`cannot look for ${JSON.stringify(target)} in ${JSON.stringify(value)}`);
    case 'regex': {
      if (typeof target !== 'string' || typeof value !== 'string') throw new InvalidCondition('"regex" compares a string with a pattern');
      const re = linearRegex(target);
      if (typeof re === 'string') throw new InvalidCondition(`invalid regular expression: ${re}`);
      return re.matcher(value).lookingAt();
    }
    default:
      return compare(value, target, op);
  }
}

/** Why a stored condition set is unusable (beyond the field's JSON schema: a regex that does not compile, a value of the wrong type for its op), or null. */
export function conditionProblem(set: Json): string | null {
  if (set === null || set === undefined) return null;
  if (!isObject(set)) return 'conditions must be a condition set: {"and": [...]} or {"or": [...]}';
  const keys = Object.keys(set);
  if (keys.length !== 1 || (keys[0] !== 'and' && keys[0] !== 'or')) return 'a condition set has one key, "and" or "or"';
  const items = set[keys[0]!];
  if (!Array.isArray(items)) return `"${keys[0]!}" must be a list`;
  for (const item of items) {
    if (isObject(item) && ('and' in item || 'or' in item)) {
      const p = conditionProblem(item);
      if (p) return p;
      continue;
    }
    if (!isObject(item) || typeof item.attr !== 'string') return 'a condition needs "attr" (a dotted path) and "value"';
    const op = (item.op ?? 'eq') as Op;
    if (!OPS.includes(op)) return `unknown op "${String(item.op)}"`;
    if (['gt', 'gte', 'lt', 'lte'].includes(op) && typeof item.value !== 'number') return `op "${op}" needs a number value`;
    if (op === 'in' && !Array.isArray(item.value)) return 'op "in" needs a list value';
    if (op === 'regex') {
      if (typeof item.value !== 'string') return 'op "regex" needs a string value';
      const re = linearRegex(item.value);
      if (typeof re === 'string') return `invalid regular expression: ${re}`;
    }
  }
  return null;
}

/** Whether the data meets the condition set (none: always). Throws InvalidCondition when it cannot be judged. */
export function conditionsHold(set: Json, data: Json): boolean {
  if (set === null || set === undefined) return true;
  if (!isObject(set)) throw new InvalidCondition('not a condition set');
  const logic = 'and' in set ? 'and' : 'or';
  const items = (set[logic] ?? []) as Json[];
  const one = (item: Json): boolean => {
    if (isObject(item) && ('and' in item || 'or' in item)) return conditionsHold(item, data);
    const c = item as { attr: string; value: Json; op?: Op; negate?: boolean };
    const result = judge(read(data, c.attr), c.op ?? 'eq', c.value);
    return c.negate ? !result : result;
  };
  return logic === 'and' ? items.every(one) : items.some(one);
}
