import type { Server, ServerResponse } from 'node:http';

export interface Drainer {
  /**
   * Stops accepting connections, closes idle keep-alive ones, and lets requests in flight finish (each
   * answered with Connection: close) for up to graceMs; then cuts what is left. Resolves with how many
   * requests were cut.
   */
  drain(graceMs: number): Promise<number>;
}

/** Keeps count of the requests in flight on server, so that SIGTERM can let them finish. */
export function trackInFlight(server: Server): Drainer {
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  server.prependListener('request', (_req, res: ServerResponse) => {
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
    // A request that arrives on a kept-alive connection during the drain is served, then the connection closed.
    if (draining) res.setHeader('Connection', 'close');
  });
  return {
    async drain(graceMs) {
      draining = true;
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<'grace over'>((resolve) => (timer = setTimeout(() => resolve('grace over'), graceMs)));
      const outcome = await Promise.race([closed, graceOver]);
      clearTimeout(timer);
      if (outcome !== 'grace over') return 0;
      const cut = inFlight.size;
      server.closeAllConnections();
      return cut;
    },
  };
}
