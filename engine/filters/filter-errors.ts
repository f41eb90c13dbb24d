import { HttpError } from '../routes/http-error';

/** 400 `{param: [message]}` for a known filter given a value it cannot take. */
export class FilterErrors {
  private readonly errors: Record<string, string[]> = {};

  add(param: string, message: string): void {
    (this.errors[param] ??= []).push(message);
  }

  throwIfAny(): void {
    if (Object.keys(this.errors).length) throw new HttpError(400, this.errors);
  }
}
