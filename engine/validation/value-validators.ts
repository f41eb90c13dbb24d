import type { Config } from '../config';
import { conditionProblem } from '../events/conditions';
import { caFileProblem } from '../events/ca-file';

/**
 * A rule a definition names for a field that is not a relation: the written value alone is judged,
 * before the write (with the server's settings, for rules an administrator bounds). Returns the error
 * message, or null. A null value (the field cleared) is never judged.
 */
export type ValueValidator = (value: unknown, config: Config | undefined) => Promise<string | null> | string | null;

const VALUE_VALIDATORS: Record<string, ValueValidator> = {
  /** NetBox's condition set, checked as the dispatcher will judge it: its shape, its size, each condition's op, value and regex. */
  condition_set: (value) => conditionProblem(value),
  /** A CA certificate file: a regular file under PATCHBAY_WEBHOOK_CA_DIR, no larger than PATCHBAY_WEBHOOK_CA_MAX_SIZE. */
  ca_file: (value, config) => (typeof value === 'string' ? caFileProblem(value, config) : null),
};

export function hasValueValidator(name: string): boolean {
  return Object.prototype.hasOwnProperty.call(VALUE_VALIDATORS, name);
}

/** The messages of the named validators the value fails. */
export async function valueProblems(names: readonly string[], value: unknown, config: Config | undefined): Promise<string[]> {
  if (value === null || value === undefined || value === '') return [];
  const out: string[] = [];
  for (const name of names) {
    const message = await VALUE_VALIDATORS[name]!(value, config);
    if (message) out.push(message);
  }
  return out;
}
