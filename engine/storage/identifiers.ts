import crypto from 'node:crypto';

/** PostgreSQL truncates identifiers at 63 bytes; long generated names keep a hash so they stay unique. */
export function sqlName(...parts: string[]): string {
  const name = parts.join('_');
  if (name.length <= 63) return name;
  const hash = crypto.createHash('sha1').update(name).digest('hex').slice(0, 8);
  return `${name.slice(0, 54)}_${hash}`;
}

/** Quotes an identifier that comes from the definitions (never from a request). */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
