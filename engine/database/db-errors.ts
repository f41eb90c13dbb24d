import type { Registry, ResolvedModel } from '../definitions/registry-types';
import type { FieldErrors } from '../validation/field-errors';
import { sqlName } from '../migrations/identifiers';

/** The parts of a PostgreSQL error (pg and PGlite raise the same fields) the engine acts on. */
export interface PgError {
  code: string;
  constraint?: string;
  detail?: string;
  table?: string;
  column?: string;
}

export function asPgError(e: unknown): PgError | null {
  if (e && typeof e === 'object' && typeof (e as { code?: unknown }).code === 'string' && /^[0-9A-Z]{5}$/.test((e as { code: string }).code)) {
    return e as PgError;
  }
  return null;
}

/** deadlock_detected, serialization_failure: PostgreSQL rolled the whole transaction back, and running it again is safe. */
const RETRYABLE = new Set(['40P01', '40001']);

export function isRetryable(e: unknown): boolean {
  return RETRYABLE.has(asPgError(e)?.code ?? '');
}

export const UNIQUE_VIOLATION = '23505';
export const NOT_NULL_VIOLATION = '23502';
export const FK_VIOLATION = '23503';
/** PostgreSQL 16+ reports ON DELETE RESTRICT as restrict_violation; 15 as foreign_key_violation. */
export const RESTRICT_VIOLATION = '23001';
/** Raised by the triggers keeping a sum (sum-triggers.ts) with the summed rows' table and column. */
export const OUT_OF_RANGE = '22003';

/** A write that broke a unique or foreign-key constraint, told as the field errors NetBox would give. */
export function constraintErrors(registry: Registry, model: ResolvedModel, e: PgError): FieldErrors | null {
  if (e.code === NOT_NULL_VIOLATION && e.table === model.table) {
    // Validation should have caught it; if a column still refuses a null, say which field.
    const column = (e as PgError & { column?: string }).column;
    const field = model.fieldList.find((f) => f.column === column || f.typeColumn === column || f.idColumn === column);
    return { [field?.name ?? column ?? 'non_field_errors']: ['This field may not be null.'] };
  }
  if (e.code === UNIQUE_VIOLATION && e.constraint) {
    const u = model.uniques.find((x) => x.constraint === e.constraint);
    if (!u) return null;
    if (u.fields.length === 1) {
      const f = model.fields.get(u.fields[0]!)!;
      return { [f.name]: [u.message ?? `${model.verboseName} with this ${f.label.toLowerCase()} already exists.`] };
    }
    return { non_field_errors: [u.message ?? `The fields ${u.fields.join(', ')} must make a unique set.`] };
  }
  if (e.code === FK_VIOLATION && e.constraint && e.table) {
    const value = /\)=\(([^)]*)\)/.exec(e.detail ?? '')?.[1] ?? '';
    if (e.table === model.table) {
      const field = model.fieldList.find((f) => f.kind === 'fk' && e.constraint === sqlName(model.table, f.column, 'fk'));
      if (field) return { [field.name]: [`Invalid pk "${value}" - object does not exist.`] };
    }
    const link = model.fieldList.find((f) => f.joinTable === e.table);
    if (link) return { [link.name]: [`Invalid pk "${value}" - object does not exist.`] };
  }
  if (e.code === OUT_OF_RANGE && e.table === model.table && e.column) {
    const field = model.fieldList.find((f) => f.column === e.column);
    if (field) return { [field.name]: ['The total of this field over the rows it is summed with would exceed the largest value the sum may hold.'] };
  }
  void registry;
  return null;
}
