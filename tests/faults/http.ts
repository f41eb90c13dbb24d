import http from 'node:http';

/** How one request ended: an answer, a broken connection, or nothing within the time allowed. */
export type Outcome =
  | { kind: 'answer'; status: number; headers: http.IncomingHttpHeaders; body: string; ms: number }
  | { kind: 'failed'; error: string; ms: number }
  | { kind: 'hung'; ms: number };

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** Give up (and call it hung) after this many ms. */
  timeoutMs: number;
  /** Keep-alive agent to reuse; by default every request opens its own connection. */
  agent?: http.Agent;
  /** Called with the request once it is sent, e.g. to abort it. */
  sent?: (req: http.ClientRequest) => void;
}

/** One request on its own connection (unless an agent is given), never throwing: the outcome says what happened. */
export function request(url: string, opts: RequestOptions): Promise<Outcome> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let done = false;
    const finish = (o: Outcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(o);
    };
    const req = http.request(url, { method: opts.method ?? 'GET', headers: opts.headers, agent: opts.agent ?? false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => finish({ kind: 'answer', status: res.statusCode ?? 0, headers: res.headers, body, ms: ms() }));
      res.on('error', (e: NodeJS.ErrnoException) => finish({ kind: 'failed', error: e.code ?? e.message, ms: ms() }));
    });
    const timer = setTimeout(() => {
      finish({ kind: 'hung', ms: ms() });
      req.destroy();
    }, opts.timeoutMs);
    req.on('error', (e: NodeJS.ErrnoException) => finish({ kind: 'failed', error: e.code ?? e.message, ms: ms() }));
    req.end();
    opts.sent?.(req);
  });
}

/** "200: 18, 503: 2, failed ECONNRESET: 1, hung: 0" */
export function tally(outcomes: Outcome[]): Record<string, number> {
  const t: Record<string, number> = {};
  for (const o of outcomes) {
    const key = o.kind === 'answer' ? String(o.status) : o.kind === 'failed' ? `failed ${o.error}` : 'hung';
    t[key] = (t[key] ?? 0) + 1;
  }
  return t;
}

export function describeTally(t: Record<string, number>): string {
  return Object.entries(t).map(([k, n]) => `${k}: ${n}`).join(', ') || 'none';
}
