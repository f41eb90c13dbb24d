import type { ResolvedModel } from './registry-types';
import type { FaultCollector } from './fault-collector';

/**
 * Definitions that load and resolve but cannot work at request time, refused with their pointers:
 * integer bounds JSON numbers do not hold exactly, choice fields a create cannot fill, uniqueness rules
 * another rule already holds.
 */
export function checkModelSense(model: ResolvedModel, faults: FaultCollector): void {
  checkIntegerBounds(model, faults);
  checkUnfillableChoices(model, faults);
  checkRedundantUniques(model, faults);
}

/** The kinds whose values are JavaScript numbers, exact only within ±(2^53 - 1). */
const SAFE_INTEGER_KINDS: ReadonlySet<string> = new Set(['integer', 'positive_integer']);

/**
 * A bound past Number.MAX_SAFE_INTEGER is not the bound written: 9223372036854775807 is read as
 * 9223372036854775808, writes would be told "less than or equal to 9007199254740991" and OPTIONS would
 * advertise 9223372036854776000.
 */
function checkIntegerBounds(model: ResolvedModel, faults: FaultCollector): void {
  for (const field of model.fieldList) {
    if (!SAFE_INTEGER_KINDS.has(field.kind)) continue;
    for (const word of ['min', 'max'] as const) {
      const v = field.def[word];
      if (v === undefined || Math.abs(v) <= Number.MAX_SAFE_INTEGER) continue;
      const shown = Number.isInteger(v) ? BigInt(v).toString() : String(v);
      faults.add(model.file, `/fields/${field.name}/${word}`, `${shown} (as JSON reads it) is beyond ±9007199254740991 (2^53-1): a ${field.kind} field's values are JSON numbers, exact only up to there, and no 64-bit integer kind exists`);
    }
  }
}

/**
 * A choice field a create may leave out must get a value from somewhere: its column is NOT NULL
 * without a default, so the write would answer "This field may not be null." for a field never sent.
 * It needs a default (a blank one may default to ""), "null": true, or "required": true. A read-only
 * field is set by the engine, and a list starts empty.
 */
function checkUnfillableChoices(model: ResolvedModel, faults: FaultCollector): void {
  for (const field of model.fieldList) {
    const f = field.def;
    if (field.kind !== 'choice' || field.nullable || field.required || field.readOnly || field.array || f.default_fn) continue;
    if (f.default !== undefined && f.default !== null) continue;
    faults.add(model.file, `/fields/${field.name}`, `a create that leaves this choice field out has nothing to store: give it a "default"${f.blank ? ' ("" for blank)' : ''}, "null": true or "required": true`);
  }
}

interface UniqueRule {
  pointer: string;
  fields: string[];
  nullsDistinct: boolean;
  whenNotNull: string[];
  caseInsensitive: string[];
  /** How the rule is named in a message. */
  named: string;
}

function uniqueRules(model: ResolvedModel): UniqueRule[] {
  const out: UniqueRule[] = [];
  for (const field of model.fieldList) {
    if (field.def.unique && field.column) out.push({ pointer: `/fields/${field.name}/unique`, fields: [field.name], nullsDistinct: true, whenNotNull: [], caseInsensitive: [], named: `"${field.name}" (unique)` });
  }
  (model.def.unique_together ?? []).forEach((u, i) => {
    const rule = Array.isArray(u) ? undefined : u;
    const fields = rule ? rule.fields : (u as string[]);
    out.push({
      pointer: `/unique_together/${i}`,
      fields,
      nullsDistinct: rule?.nulls_distinct !== false,
      whenNotNull: rule?.when_not_null ?? [],
      caseInsensitive: rule?.case_insensitive ?? [],
      named: `/unique_together/${i} (${fields.join(', ')})`,
    });
  });
  return out;
}

/**
 * Whether every two rows `wide` refuses are refused by `narrow` already: narrow's fields are among
 * wide's, and narrow is no looser where they share fields (nulls, conditions, letter case).
 */
function holds(narrow: UniqueRule, wide: UniqueRule, model: ResolvedModel): boolean {
  if (!narrow.fields.every((n) => wide.fields.includes(n))) return false;
  const nullable = narrow.fields.some((n) => model.fields.get(n)?.nullable || model.fields.get(n)?.kind === 'generic_fk');
  if (nullable && narrow.nullsDistinct && !wide.nullsDistinct) return false;
  if (!narrow.whenNotNull.every((n) => wide.whenNotNull.includes(n))) return false;
  return wide.caseInsensitive.filter((n) => narrow.fields.includes(n)).every((n) => narrow.caseInsensitive.includes(n));
}

/**
 * A uniqueness rule another one holds already (a set holding a unique field, the same set twice, in
 * any order) adds a constraint that can never be the one a write breaks: its message is never told,
 * and a test cannot tell its violation from the other's.
 */
function checkRedundantUniques(model: ResolvedModel, faults: FaultCollector): void {
  const rules = uniqueRules(model);
  rules.forEach((wide, i) => {
    if (wide.pointer.startsWith('/fields/')) return;
    // Of two equal sets the later is reported; a wider set is reported whichever comes first.
    const narrow = rules.find((other, j) => j !== i && holds(other, wide, model) && (other.fields.length < wide.fields.length || j < i));
    if (!narrow) return;
    const same = narrow.fields.length === wide.fields.length;
    faults.add(model.file, wide.pointer, same ? `redundant: the same set as ${narrow.named}` : `redundant: it holds ${narrow.named}, unique already`);
  });
}
