import { normalizeCidr, normalizeInet, normalizeMac } from '../validation/ip-values';
import { badStringMessage } from '../validation/string-hygiene';
import { ISO_DATE, ISO_DATETIME, withinCalendar } from '../validation/calendar';
import type { FilterContext } from './filter-context';

/** A query-string value parsed for a kind of field, or the message telling why it cannot be. */
export type Parsed<T = unknown> = { ok: true; value: T } | { ok: false; message: string };

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const bad = (message: string): Parsed<never> => ({ ok: false, message });

export type ValueKind = 'integer' | 'number' | 'string' | 'boolean' | 'date' | 'datetime' | 'inet' | 'cidr' | 'mac' | 'text';

const MAX_VALUE_LENGTH = 4096;

export function parseValue(kind: ValueKind, raw: string): Parsed {
  if (raw.length > MAX_VALUE_LENGTH) return bad(`Ensure this value has at most ${MAX_VALUE_LENGTH} characters.`);
  const hygiene = badStringMessage(raw);
  if (hygiene) return bad(hygiene);
  switch (kind) {
    case 'integer': {
      if (!/^-?\d{1,15}$/.test(raw.trim())) return bad('Enter a number.');
      return ok(Number(raw));
    }
    case 'number': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n)) return bad('Enter a number.');
      return ok(n);
    }
    case 'boolean': {
      const v = raw.toLowerCase();
      if (['true', '1', 'yes', 'on'].includes(v)) return ok(true);
      if (['false', '0', 'no', 'off'].includes(v)) return ok(false);
      return bad(`Select a valid choice. ${raw} is not one of the available choices.`);
    }
    case 'date':
      return ISO_DATE.test(raw) && withinCalendar(raw) ? ok(raw) : bad('Enter a valid date.');
    case 'datetime':
      return ISO_DATETIME.test(raw) && withinCalendar(raw) ? ok(raw) : bad('Enter a valid date/time.');
    case 'inet': {
      const r = normalizeInet(raw);
      return r.ok ? ok(r.value) : bad(r.message);
    }
    case 'cidr': {
      const r = normalizeCidr(raw);
      return r.ok ? ok(r.value) : bad(r.message);
    }
    case 'mac': {
      const r = normalizeMac(raw);
      return r.ok ? ok(r.value) : bad(r.message);
    }
    default:
      return ok(raw);
  }
}

/** Escapes LIKE wildcards so a value matches literally. */
export function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Parses every value; on the first bad one records the error under the parameter and returns null. */
export function parseAll(kind: ValueKind, values: string[], param: string, ctx: FilterContext): unknown[] | null {
  const out: unknown[] = [];
  for (const raw of values) {
    const p = parseValue(kind, raw);
    if (!p.ok) {
      ctx.errors.add(param, p.message);
      return null;
    }
    out.push(p.value);
  }
  return out;
}
