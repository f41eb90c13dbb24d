/** What a client is told to wait before trying again while the database is unavailable (Retry-After, seconds). */
export const RETRY_AFTER_SECONDS = 5;

/** Socket errors that mean the server cannot be reached (or went away mid-conversation). */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'ENOTFOUND', 'EAI_AGAIN']);

/** SQLSTATEs of a server that is going away, starting, out of connections, or that cancelled a statement. */
const SQLSTATES: Record<string, string> = {
  '57P01': 'the server terminated the connection',
  '57P02': 'the server crashed',
  '57P03': 'the server is starting up or shutting down',
  '53300': 'too many connections',
  '57014': 'statement cancelled (statement_timeout, or the client left)',
};

/** pg raises these, without a code, when a connection breaks or does not open in time. */
const PG_CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout expired',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Query read timeout',
];

const REASON = Symbol('database unavailable');

/** Tags err as the database's unavailability (the tag survives whatever wraps or rewrites the error). */
export function markUnavailable<E extends object>(err: E, reason: string): E {
  return Object.assign(err, { [REASON]: reason });
}

/**
 * Why the database cannot serve right now, in a few words (for a log line), or null when err is anything
 * else (a bug, bad input). These are a 503, not a 500: they are the database's state, not the request's.
 */
export function unavailableReason(err: unknown, depth = 0): string | null {
  if (!err || typeof err !== 'object' || depth > 4) return null;
  const tagged = (err as { [REASON]?: unknown })[REASON];
  if (typeof tagged === 'string') return tagged;
  const e = err as { code?: unknown; message?: unknown; errors?: unknown; cause?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : '';
  if (NETWORK_CODES.has(code)) return code;
  if (SQLSTATES[code]) return `${code}: ${SQLSTATES[code]}`;
  if (/^08...$/.test(code)) return `${code}: connection exception`;
  if (!code && PG_CONNECTION_MESSAGES.some((m) => message.startsWith(m))) return message;
  // Node reports a refused connection to every address of a name as an AggregateError.
  if (Array.isArray(e.errors)) {
    for (const inner of e.errors) {
      const reason = unavailableReason(inner, depth + 1);
      if (reason) return reason;
    }
  }
  return unavailableReason(e.cause, depth + 1);
}

/** The 503 body's detail. */
export function unavailableDetail(): string {
  return `The database is unavailable; try again in ${RETRY_AFTER_SECONDS} seconds.`;
}
