/** DRF-shaped validation errors: field name -> messages; `non_field_errors` for the object as a whole. */
export type FieldErrors = Record<string, string[]>;

/** A 400 whose body is the errors (an object, or a list aligned with a bulk request's elements). */
export class ValidationError extends Error {
  constructor(readonly errors: FieldErrors | FieldErrors[]) {
    super('validation failed');
    this.name = 'ValidationError';
  }
}

export function addError(errors: FieldErrors, field: string, message: string): void {
  // Own properties only: a client's field may be named "__proto__" or "constructor".
  if (!Object.prototype.hasOwnProperty.call(errors, field)) {
    Object.defineProperty(errors, field, { value: [], enumerable: true, writable: true, configurable: true });
  }
  errors[field]!.push(message);
}

export function hasErrors(errors: FieldErrors): boolean {
  return Object.keys(errors).length > 0;
}
