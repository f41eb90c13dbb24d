import { IDEMPOTENCY_KEY_HEADER } from '../idempotency/idempotency-header';

const WRITE_METHODS = ['post', 'put', 'patch', 'delete'];

/** The optional header every write takes (engine/idempotency, docs/scaling-out/idempotency.md). */
function idempotencyKeyParameter(): Record<string, unknown> {
  return {
    name: IDEMPOTENCY_KEY_HEADER,
    in: 'header',
    required: false,
    description:
      'An opaque key (1 to 255 printable ASCII characters) of your choosing for this write. A retry with the same key and the same request gets the first answer again, with Idempotent-Replayed: true, and writes nothing; the same key with another request is a 422. Keys are per user and kept IDEMPOTENCY_KEY_RETENTION hours.',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
  };
}

/** Adds the Idempotency-Key header to every write operation of the paths (each its own copy, inline as the others). */
export function addIdempotencyKeyParameter(paths: Record<string, Record<string, unknown>>): void {
  for (const item of Object.values(paths)) {
    for (const method of WRITE_METHODS) {
      const op = item[method] as { parameters?: unknown[] } | undefined;
      if (!op || typeof op !== 'object') continue;
      // An operation object two paths share gets the header once.
      if (op.parameters?.some((p) => (p as { name?: unknown }).name === IDEMPOTENCY_KEY_HEADER)) continue;
      op.parameters = [...(op.parameters ?? []), idempotencyKeyParameter()];
    }
  }
}
