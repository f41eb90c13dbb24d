/** A fragment of a WHERE clause over the model's table aliased "t"; values only as bindings. */
export interface Condition {
  sql: string;
  bindings: unknown[];
}

export function andAll(conditions: readonly Condition[]): Condition {
  if (!conditions.length) return { sql: 'TRUE', bindings: [] };
  return {
    sql: conditions.map((c) => `(${c.sql})`).join(' AND '),
    bindings: conditions.flatMap((c) => c.bindings),
  };
}
