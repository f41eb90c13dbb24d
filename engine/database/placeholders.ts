import type { Statement } from './db';

/**
 * A statement written with `?` holes as PostgreSQL's `$n`: each `?` is the next value; `\?` is a plain
 * `?` (jsonb's `?` operator in hand-written SQL). Every `?` counts, inside quotes too, so SQL text that
 * needs one writes `\?`. A hole with no value, or a value with no hole, is refused before PostgreSQL sees it.
 */
export function positional(sql: string, bindings: readonly unknown[]): Statement {
  let n = 0;
  const text = sql.replace(/\\\?|\?/g, (hole) => {
    if (hole === '\\?') return '?';
    n++;
    return `$${n}`;
  });
  if (n !== bindings.length) {
    throw new Error(`Expected ${n} bindings, saw ${bindings.length}`);
  }
  return { text, values: bindings };
}
