import { SqlParam, type Sql } from '../sql/fragment';
import { sqlLiteral } from './identifiers';

/**
 * A fragment written out as SQL text with its values as literals, for the bodies of functions a
 * migration creates (a trigger cannot take bound parameters). Only fragments built from the
 * definitions reach here (a display template's text between its fields); their values are strings,
 * numbers, booleans, lists of them or NULL, each quoted by sqlLiteral; a named hole (SqlParam) becomes
 * the expression `params` gives for it.
 */
export function inlineSql(fragment: Sql, params: Readonly<Record<string, string>> = {}): string {
  let text = fragment.texts[0]!;
  fragment.values.forEach((v, i) => {
    if (v instanceof SqlParam) {
      // A hole a request fills (the origin URLs start with): an SQL expression the function evaluates instead.
      const expr = params[v.name];
      if (expr === undefined) throw new Error(`inlineSql: no expression for parameter ${v.name}`);
      text += `(${expr})`;
    } else if (v === null) text += 'NULL';
    else if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') text += sqlLiteral(v);
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) text += `ARRAY[${(v as string[]).map((x) => sqlLiteral(x)).join(', ')}]::text[]`;
    else if (Array.isArray(v) && v.every((x) => typeof x === 'number')) text += `ARRAY[${(v as number[]).map((x) => sqlLiteral(x)).join(', ')}]::bigint[]`;
    else throw new Error(`inlineSql: a ${typeof v} cannot be written as a literal`);
    text += fragment.texts[i + 1]!;
  });
  return text;
}
