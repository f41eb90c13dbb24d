import Ajv from 'ajv';

const ajv = new Ajv({ allErrors: false, strict: false });

/** Why a definition's json_schema cannot be used (ajv refuses to compile it), or null. */
export function jsonSchemaProblem(schema: unknown): string | null {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return 'json_schema must be a JSON Schema object';
  try {
    ajv.compile(schema);
    return null;
  } catch (e) {
    return `json_schema does not compile: ${(e as Error).message}`;
  }
}
