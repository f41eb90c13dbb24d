/** An answer other than success, with the JSON body NetBox gives for it. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body === 'object' && body && 'detail' in body ? String((body as { detail: unknown }).detail) : `HTTP ${status}`);
    this.name = 'HttpError';
  }
}

export const notFound = () => new HttpError(404, { detail: 'Not found.' });
export const methodNotAllowed = (method: string, allow: string[]) =>
  new HttpError(405, { detail: `Method "${method}" not allowed.` }, { Allow: allow.join(', ') });
export const NOT_AUTHENTICATED_DETAIL = 'Authentication credentials were not provided.';
export const notAuthenticated = () => new HttpError(403, { detail: NOT_AUTHENTICATED_DETAIL });
export const permissionDenied = (detail = 'You do not have permission to perform this action.') => new HttpError(403, { detail });
/** Every sandbox worker is busy and the queue is full: the caller may try again shortly. */
export const sandboxBusy = (detail: string) => new HttpError(503, { detail }, { 'Retry-After': '1' });
