import type { ResolvedField } from '../definitions/registry-types';
import { sqlLiteral } from './identifiers';

const INT32_MAX = 2147483647;

/** The SQL type of a field's column, from its kind alone. */
export function sqlTypeOf(field: ResolvedField): string {
  const f = field.def;
  let base: string;
  switch (field.kind) {
    case 'string':
      base = f.max_length ? `varchar(${f.max_length})` : 'text';
      break;
    case 'slug':
      base = `varchar(${f.max_length ?? 100})`;
      break;
    case 'text':
      base = 'text';
      break;
    case 'password':
      base = 'varchar(128)';
      break;
    case 'image':
      // The file's name under the media folder (Django's FileField: varchar(100)).
      base = `varchar(${f.max_length ?? 100})`;
      break;
    case 'integer':
    case 'positive_integer':
      base = (f.max ?? 0) > INT32_MAX || (f.min ?? 0) < -INT32_MAX ? 'bigint' : 'integer';
      break;
    case 'boolean':
      base = 'boolean';
      break;
    case 'decimal':
      base = `numeric(${f.max_digits ?? 12},${f.decimal_places ?? 2})`;
      break;
    case 'float':
      base = 'double precision';
      break;
    case 'date':
      base = 'date';
      break;
    case 'datetime':
      base = 'timestamptz';
      break;
    case 'json':
    case 'custom_fields':
      base = 'jsonb';
      break;
    case 'choice':
      base = field.choices?.numeric ? 'integer' : 'varchar(50)';
      break;
    case 'fk':
      base = 'bigint';
      break;
    case 'cidr':
      base = 'cidr';
      break;
    case 'inet':
      base = 'inet';
      break;
    case 'mac':
      base = 'macaddr';
      break;
    default:
      throw new Error(`field kind ${field.kind} has no column`);
  }
  return field.array ? `${base}[]` : base;
}

/** Literal SQL for a static default, so a NOT NULL column can be added to a table that has rows. */
export function sqlDefaultOf(field: ResolvedField): string | undefined {
  const f = field.def;
  if (field.kind === 'custom_fields') return `'{}'::jsonb`;
  if (f.default === undefined || f.default === null) {
    if (field.nullable || field.required) return undefined;
    if (field.array) return `'{}'`;
    if (['string', 'text', 'slug'].includes(field.kind)) return `''`;
    return undefined;
  }
  const v = f.default;
  if (typeof v === 'boolean' || typeof v === 'number') return String(v);
  if (typeof v === 'string') return sqlLiteral(v);
  if (Array.isArray(v) && v.length === 0) return `'{}'`;
  if (field.kind === 'json') return `'${JSON.stringify(v).replace(/'/g, "''")}'::jsonb`;
  return undefined;
}
