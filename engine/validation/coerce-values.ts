import type { ResolvedField, ResolvedModel } from '../definitions/registry-types';

/**
 * What NetBox's serializers (Django REST Framework fields) accept beyond the JSON type itself, so that
 * clients which send strings for everything work unchanged (Ansible's templated values arrive as
 * strings: "vid": "100", "enabled": "True"):
 * - integers: a string of digits, optionally signed, with DRF's tolerated ".0" tail ("100", "100.0");
 * - numbers (decimal, float): a numeric string;
 * - booleans: DRF's true and false spellings ("true", "True", "1", "yes", "on", 1 ...);
 * - numeric choices: a string of digits;
 * - text: a number, written as its decimal string (DRF's CharField does so; booleans stay refused).
 * Anything else is left as it is, for the schema check to refuse with its usual message.
 */

const INTEGER_TEXT = /^\s*[-+]?\d{1,30}(?:\.0*)?\s*$/;
const NUMBER_TEXT = /^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*$/;
const TRUE_VALUES: ReadonlySet<unknown> = new Set(['t', 'T', 'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON', '1', 1]);
const FALSE_VALUES: ReadonlySet<unknown> = new Set(['f', 'F', 'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF', '0', 0]);
const TEXT_KINDS: ReadonlySet<string> = new Set(['string', 'text', 'slug']);

function integer(v: unknown): unknown {
  if (typeof v !== 'string' || !INTEGER_TEXT.test(v)) return v;
  const n = Number(v.trim().replace(/\.0*$/, ''));
  // Past 2**53 the text is not an exact integer any more: leave it for the schema to refuse.
  return Number.isSafeInteger(n) ? n : v;
}

function number(v: unknown): unknown {
  if (typeof v !== 'string' || !NUMBER_TEXT.test(v)) return v;
  const n = Number(v);
  return Number.isFinite(n) ? n : v;
}

function boolean(v: unknown): unknown {
  if (TRUE_VALUES.has(v)) return true;
  if (FALSE_VALUES.has(v)) return false;
  return v;
}

function text(v: unknown): unknown {
  return typeof v === 'number' && Number.isFinite(v) ? String(v) : v;
}

/** The coercion one value of a field gets, or null when the field takes its values as they come. */
function coercionOf(field: ResolvedField): ((v: unknown) => unknown) | null {
  switch (field.kind) {
    case 'integer':
    case 'positive_integer':
      return integer;
    case 'decimal':
    case 'float':
      return number;
    case 'boolean':
      return boolean;
    case 'choice':
      return field.choices?.numeric ? integer : text;
    default:
      return TEXT_KINDS.has(field.kind) ? text : null;
  }
}

/** The body with every value a lenient NetBox serializer would accept turned into the JSON type the schema wants. */
export function coerceBody(model: ResolvedModel, body: Record<string, unknown>): Record<string, unknown> {
  const out = body;
  for (const field of model.fieldList) {
    if (field.readOnly) continue;
    if (field.kind === 'generic_fk') {
      if (Object.prototype.hasOwnProperty.call(out, field.idColumn)) out[field.idColumn] = integer(out[field.idColumn]);
      continue;
    }
    if (!Object.prototype.hasOwnProperty.call(out, field.name)) continue;
    if (field.kind === 'children' && Array.isArray(out[field.name])) {
      out[field.name] = (out[field.name] as unknown[]).map((item) =>
        item !== null && typeof item === 'object' && !Array.isArray(item) && 'object_id' in item ? { ...item, object_id: integer((item as { object_id: unknown }).object_id) } : item,
      );
      continue;
    }
    const coerce = coercionOf(field);
    if (!coerce) continue;
    const v = out[field.name];
    out[field.name] = field.array && Array.isArray(v) ? v.map(coerce) : coerce(v);
  }
  return out;
}
