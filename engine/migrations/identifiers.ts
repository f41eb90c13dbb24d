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

/** A value from the definitions (never from a request) written as an SQL literal. */
export function sqlLiteral(v: string | number | boolean): string {
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`not a finite number: ${v}`);
    return String(v);
  }
  return `'${v.replace(/'/g, "''")}'`;
}
