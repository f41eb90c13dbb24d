import type { ResolvedField } from '../definitions/registry-types';
import type { Cast } from '../sql/casts';
import { ISO_DATE, ISO_DATETIME, withinCalendar } from './calendar';
import { normalizeCidr, normalizeInet, normalizeMac } from './ip-values';

/** A JSON value ready to be compared with a column: the value to bind, and the cast that types the placeholder. */
export interface Comparable {
  value: unknown;
  cast: Cast;
}

const INTEGER = /^-?\d{1,15}$/;
const DECIMAL = /^-?\d{1,30}(\.\d{1,30})?$/;

/** A whole number (or its digits as text) within the integers JavaScript and a bigint both hold exactly. */
function integer(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && INTEGER.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(n) ? n : null;
}

/**
 * A JSON value (such as a stored permission constraint) as a parameter compared with a field's column,
 * or null when the column's type cannot hold it: binding text to an id, a list to a boolean or
 * 30 February to a date would be a database error, not "no match". `field` null stands for a key
 * column (the id, a foreign key, a many-to-many target). Integers are bound as bigint, which compares
 * with any integer column (and its index); JSON and list columns compare with no scalar.
 */
export function comparableFor(field: ResolvedField | null, value: unknown): Comparable | null {
  const kind = field === null ? 'fk' : field.array ? 'array' : field.kind;
  switch (kind) {
    case 'fk':
    case 'integer':
    case 'positive_integer': {
      const n = integer(value);
      return n === null ? null : { value: n, cast: 'bigint' };
    }
    case 'choice': {
      if (field?.choices?.numeric) {
        const n = integer(value);
        return n === null ? null : { value: n, cast: 'bigint' };
      }
      return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) ? { value: String(value), cast: null } : null;
    }
    case 'decimal':
    case 'float':
      if (typeof value === 'number') return Number.isFinite(value) ? { value, cast: null } : null;
      return typeof value === 'string' && DECIMAL.test(value) ? { value, cast: null } : null;
    case 'boolean':
      return typeof value === 'boolean' ? { value, cast: null } : null;
    case 'date':
      return typeof value === 'string' && ISO_DATE.test(value) && withinCalendar(value) ? { value, cast: 'date' } : null;
    case 'datetime':
      return typeof value === 'string' && ISO_DATETIME.test(value) && withinCalendar(value) ? { value, cast: 'timestamptz' } : null;
    case 'inet':
    case 'cidr':
    case 'mac': {
      if (typeof value !== 'string') return null;
      const n = kind === 'inet' ? normalizeInet(value) : kind === 'cidr' ? normalizeCidr(value) : normalizeMac(value);
      return n.ok ? { value: n.value, cast: kind === 'mac' ? 'macaddr' : kind } : null;
    }
    case 'string':
    case 'text':
    case 'slug':
    case 'password':
      return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) ? { value: String(value), cast: null } : null;
    default:
      return null;
  }
}
