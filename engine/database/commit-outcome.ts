import { unavailableReason } from './db-unavailable';

const OUTCOME_UNKNOWN = Symbol('commit outcome unknown');

/**
 * A COMMIT that failed because the connection was lost or timed out before its answer arrived: the server
 * may have committed (and its events with it) or not. A failure the server reported (a deferred
 * constraint, a serialization failure) means it did not commit, and is not this.
 */
export function commitFailure(err: unknown): unknown {
  if (err && typeof err === 'object' && unavailableReason(err) && !serverRefusedCommit(err)) {
    return Object.assign(err, { [OUTCOME_UNKNOWN]: true });
  }
  return err;
}

/** Integrity (23) and transaction-rollback (40) classes: the server answered, and what it answered is "not committed". */
function serverRefusedCommit(err: object): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('23') || code.startsWith('40'));
}

/** Whether err is a COMMIT whose outcome this process cannot know. */
export function commitOutcomeUnknown(err: unknown): boolean {
  return !!err && typeof err === 'object' && (err as { [OUTCOME_UNKNOWN]?: unknown })[OUTCOME_UNKNOWN] === true;
}

/** The 504 body's detail: the client must look before it retries (or retry with the same Idempotency-Key). */
export function commitOutcomeUnknownDetail(requestId: string): string {
  return `The database connection was lost while this write was being committed: it may or may not have been applied. Look for request ${requestId} in the change log (/api/extras/object-changes/?request_id=${requestId}) before retrying, or retry with the same Idempotency-Key header.`;
}
