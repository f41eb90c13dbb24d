type Schema = Record<string, unknown>;

/**
 * A value of a json field that its definition's json_schema accepts (objects empty, lists of one
 * element, strings short and numbered), or {} when the field has none: the factories that make valid
 * objects from the definitions use it.
 */
export function jsonSample(f: { def: { json_schema?: unknown } }, n: number): unknown {
  const schema = f.def.json_schema as Schema | undefined;
  return schema ? sample(schema, n) : {};
}

function sample(schema: Schema, n: number): unknown {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'array': {
      const items = (schema.items ?? {}) as Schema;
      const count = Math.max(1, Number(schema.minItems ?? 1));
      return Array.from({ length: Math.min(count, Number(schema.maxItems ?? count)) }, (_, i) => sample(items, n + i));
    }
    case 'string':
      return `v${n}`;
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    default:
      return {};
  }
}
