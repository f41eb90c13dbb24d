// Characters PostgreSQL text cannot hold (NUL) or that UTF-8 cannot encode (a lone surrogate): refused as bad input.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function badStringMessage(s: string): string | null {
  if (s.includes('\u0000')) return 'Null characters are not allowed.';
  if (LONE_SURROGATE.test(s)) return 'Invalid unicode: unpaired surrogate.';
  return null;
}

/** The first bad string anywhere inside a value (objects, arrays), for JSON fields. */
export function findBadString(value: unknown, depth = 0): string | null {
  if (typeof value === 'string') return badStringMessage(value);
  // Deeper than any body json-body.ts lets through (100 levels), so nothing reaches the database unseen.
  if (depth > 128 || value === null || typeof value !== 'object') return null;
  for (const [k, v] of Object.entries(value)) {
    const m = badStringMessage(k) ?? findBadString(v, depth + 1);
    if (m) return m;
  }
  return null;
}
