import { HttpError } from '../http/http-error';
import { addError, type FieldErrors } from '../validation/field-errors';

/** Under STRICT_FILTERING, the message for a parameter that names no filter of the list. */
export const unknownFilterMessage = (param: string): string => `Unknown filter: ${param} is not a filter of this list (STRICT_FILTERING is on).`;

/** 400 `{param: [message]}` for a known filter given a value it cannot take. */
export class FilterErrors {
  // Keyed by what the query string names: own properties only (a parameter may be called "__proto__").
  private readonly errors: FieldErrors = {};

  add(param: string, message: string): void {
    addError(this.errors, param, message);
  }

  has(param: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.errors, param);
  }

  throwIfAny(): void {
    if (Object.keys(this.errors).length) throw new HttpError(400, this.errors);
  }
}
