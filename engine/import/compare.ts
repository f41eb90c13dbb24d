/**
 * The deep comparison after an import: every source object's representation against the target's, field
 * by field, with the hosts in URLs taken out (the two systems answer under different names). A key the
 * source shows and the target lacks is a difference; keys only the target shows (Patchbay's additions)
 * are not.
 */

export interface Difference {
  type: string;
  id: number;
  field: string;
  source: unknown;
  target: unknown;
}

/** Turns absolute URLs under any of the origins into paths, everywhere in a value. */
export function withoutOrigins(value: unknown, origins: readonly string[]): unknown {
  if (typeof value === 'string') {
    for (const o of origins) if (value.startsWith(`${o}/`)) return value.slice(o.length);
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => withoutOrigins(v, origins));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = withoutOrigins(v, origins);
    return out;
  }
  return value;
}

/** Timestamps are compared as instants: NetBox and Patchbay may print the same one with other digits. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

function sameInstant(a: string, b: string): boolean {
  if (!TIMESTAMP.test(a) || !TIMESTAMP.test(b)) return false;
  // Microseconds matter: Date keeps milliseconds only, so the fractions are compared apart.
  const frac = (s: string) => (/\.(\d+)/.exec(s)?.[1] ?? '').padEnd(6, '0').slice(0, 6);
  return Date.parse(a) === Date.parse(b) && frac(a) === frac(b);
}

export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'string' && typeof b === 'string') return sameInstant(a, b);
  if (typeof a === 'number' && typeof b === 'number') return Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => sameValue(x, b[i]));
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => k in b && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return false;
}

/** The differences between one object as the source and the target show it (both already without origins). */
export function differences(type: string, source: Record<string, unknown> & { id: number }, target: Record<string, unknown> | undefined): Difference[] {
  if (!target) return [{ type, id: source.id, field: '(object)', source: 'present', target: 'missing' }];
  const out: Difference[] = [];
  for (const [field, value] of Object.entries(source)) {
    if (!(field in target)) out.push({ type, id: source.id, field, source: value, target: '(no such field)' });
    else if (!sameValue(value, target[field])) out.push({ type, id: source.id, field, source: value, target: target[field] });
  }
  return out;
}
