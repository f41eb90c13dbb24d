/**
 * One holder at a time, in the order they asked: the embedded database is one session, and a
 * transaction holds it from BEGIN to COMMIT, so no other statement lands inside that transaction.
 */
export class SessionMutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work);
    // The next holder waits for this one to finish, however it finishes.
    this.tail = result.catch(() => undefined);
    return result;
  }
}
