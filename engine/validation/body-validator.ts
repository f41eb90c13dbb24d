import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats';
import type { ResolvedModel } from '../definitions/registry-types';
import { requestSchema } from './request-schema';
import { addError, type FieldErrors } from './field-errors';
import { withinCalendar } from './calendar';

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
// ajv-formats' date and date-time take year 0 and UTC offsets up to 23:59; PostgreSQL holds neither.
for (const name of ['date', 'date-time'] as const) {
  const base = fullFormats[name] as { validate: (s: string) => boolean; compare: (a: string, b: string) => number | undefined };
  ajv.addFormat(name, { type: 'string', validate: (s: string) => base.validate(s) && withinCalendar(s), compare: base.compare });
}

const compiled = new Map<string, ValidateFunction>();

function validatorFor(model: ResolvedModel, mode: 'create' | 'partial'): ValidateFunction {
  const key = `${model.label}:${mode}`;
  let v = compiled.get(key);
  if (!v) compiled.set(key, (v = ajv.compile(requestSchema(model, mode))));
  return v;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'object') return 'dict';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  return typeof v;
}

function messageFor(e: ErrorObject, value: unknown): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return 'This field is required.';
    case 'type': {
      if (value === null) return 'This field may not be null.';
      const t = String(p.type);
      if (t.startsWith('integer')) return 'A valid integer is required.';
      if (t.startsWith('number')) return 'A valid number is required.';
      if (t.startsWith('boolean')) return 'Must be a valid boolean.';
      if (t.startsWith('string')) return 'Not a valid string.';
      if (t.startsWith('array')) return `Expected a list of items but got type "${typeName(value)}".`;
      if (t.startsWith('object')) return `Expected a dictionary of items but got type "${typeName(value)}".`;
      return 'Invalid value.';
    }
    case 'maxLength':
      return `Ensure this field has no more than ${String(p.limit)} characters.`;
    case 'minLength':
      return 'This field may not be blank.';
    case 'minimum':
      return `Ensure this value is greater than or equal to ${String(p.limit)}.`;
    case 'maximum':
      return `Ensure this value is less than or equal to ${String(p.limit)}.`;
    case 'enum':
      return value === null ? 'This field may not be null.' : `"${typeof value === 'string' ? value : JSON.stringify(value)}" is not a valid choice.`;
    case 'pattern':
      return String(p.pattern) === '^[-a-zA-Z0-9_]+$'
        ? 'Enter a valid "slug" consisting of letters, numbers, underscores or hyphens.'
        : 'Enter a valid value.';
    case 'format':
      return p.format === 'date'
        ? 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'
        : 'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].';
    case 'minItems':
      return `Ensure this list has at least ${String(p.limit)} elements.`;
    case 'maxItems':
      return `Ensure this list has no more than ${String(p.limit)} elements.`;
    case 'additionalProperties':
      return `Unknown key "${String(p.additionalProperty)}".`;
    case 'anyOf':
      if (value === null) return 'This field may not be null.';
      return `Incorrect type. Expected pk value, received ${typeName(value)}.`;
    default:
      return e.message ?? 'Invalid value.';
  }
}

/**
 * Checks a body against the model's request schema; returns DRF-shaped errors, one message per field
 * (the most telling: for a value of the wrong shape, the anyOf summary rather than each branch).
 */
export function validateBody(model: ResolvedModel, body: Record<string, unknown>, mode: 'create' | 'partial'): FieldErrors {
  const validate = validatorFor(model, mode);
  const errors: FieldErrors = {};
  if (validate(body)) return errors;
  const byField = new Map<string, ErrorObject[]>();
  for (const e of validate.errors ?? []) {
    const field = e.keyword === 'required' ? String((e.params as { missingProperty: string }).missingProperty) : e.instancePath.split('/')[1] ?? 'non_field_errors';
    let list = byField.get(field);
    if (!list) byField.set(field, (list = []));
    list.push(e);
  }
  for (const [field, list] of byField) {
    const top = list.find((e) => e.keyword === 'anyOf' && e.instancePath === `/${field}`);
    const nested = list.find((e) => e.instancePath.split('/').length > 2 && e.keyword !== 'anyOf');
    const chosen = top ?? nested ?? list.find((e) => e.keyword !== 'anyOf') ?? list[0]!;
    const value = chosen.instancePath ? pointerGet(body, chosen.instancePath) : undefined;
    addError(errors, field, messageFor(chosen, value));
  }
  return errors;
}

function pointerGet(root: unknown, pointer: string): unknown {
  let cur: unknown = root;
  for (const part of pointer.split('/').slice(1)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return cur;
}
