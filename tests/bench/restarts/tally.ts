/** What happened to one request, from the client's side. */
export type Outcome =
  /** Any HTTP answer below 500. */
  | 'answered'
  | '5xx'
  /** ECONNREFUSED: nothing was sent, so a client or load balancer retries safely (the bench retries on the next instance). */
  | 'refused'
  /** Reset or hang-up on a kept-alive connection reused for this request: sent, outcome unknown. */
  | 'lost on a reused connection'
  /** Reset on a connection opened for this request. */
  | 'lost on a new connection'
  | 'hung';

export const OUTCOMES: readonly Outcome[] = ['answered', '5xx', 'refused', 'lost on a reused connection', 'lost on a new connection', 'hung'];

export type Tally = Record<Outcome, number>;

export function emptyTally(): Tally {
  return { answered: 0, '5xx': 0, refused: 0, 'lost on a reused connection': 0, 'lost on a new connection': 0, hung: 0 };
}

export function addTally(into: Tally, from: Partial<Tally>): void {
  for (const k of OUTCOMES) into[k] += from[k] ?? 0;
}

/** The requests a client could not know the fate of: what a rolling restart must bring to zero. */
export function lost(t: Tally): number {
  return t['lost on a reused connection'] + t['lost on a new connection'] + t.hung + t['5xx'];
}
