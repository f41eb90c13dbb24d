import net from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export interface Drainer {
  /**
   * For delayMs keeps accepting and serving (every answer with Connection: close, the health check 503), so
   * that a load balancer polling the health check stops routing here while the listener is still open; then
   * stops accepting connections and lets requests in flight finish for up to graceMs; then cuts what is
   * left. Resolves with how many requests were cut.
   */
  drain(graceMs: number, delayMs?: number): Promise<number>;
  /**
   * During the drain, answers the health check (/api/status/) 503 so that a load balancer polling it on a
   * kept-alive connection takes the instance out of rotation; true when it answered.
   */
  answerHealthCheck(req: IncomingMessage, res: ServerResponse): boolean;
}

/**
 * Keeps count of the requests in flight on server, so that SIGTERM can let them finish.
 *
 * Idle keep-alive connections are not closed when the drain starts. Closing one races with the client, which
 * may be writing a request on it at that moment: the request is then reset after it was sent, and the client
 * cannot know whether it was processed (a rolling restart lost 1 such request per restart, measured with
 * `npm run bench:restarts`). Instead, during the drain every request that arrives on an open connection is
 * served with Connection: close, which a client honours by not reusing the connection; and an idle connection
 * is left to the keep-alive timeout that would have closed it anyway (server.keepAliveTimeout after its last
 * response, announced to clients in the Keep-Alive header), so the drain adds no close the client would not
 * have met without it. Connections that never carried a request are closed once that timeout has passed.
 *
 * Closing the listener resets the connections the kernel had already queued on it (Node cannot take them
 * without taking new ones too): a client connecting at that instant loses its request. The drain delay keeps
 * the listener open until a health-checking load balancer has stopped sending new connections here.
 */
export function trackInFlight(server: Server): Drainer {
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  server.prependListener('request', (_req, res: ServerResponse) => {
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
    if (draining) res.setHeader('Connection', 'close');
  });
  return {
    answerHealthCheck(req, res) {
      if (!draining || !/^\/api\/status\/?(\?|$)/.test(req.url ?? '')) return false;
      const body = JSON.stringify({ detail: 'This instance is shutting down.' });
      res.writeHead(503, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'Retry-After': '1', Connection: 'close' });
      res.end(body);
      return true;
    },
    async drain(graceMs, delayMs = 0) {
      draining = true;
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      // net.Server's close, not http.Server's: that one also closes every idle connection at once (see above).
      const closed = new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve()));
      const idlePast = setTimeout(() => server.closeIdleConnections(), server.keepAliveTimeout || 0);
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<'grace over'>((resolve) => (timer = setTimeout(() => resolve('grace over'), graceMs)));
      const outcome = await Promise.race([closed, graceOver]);
      clearTimeout(timer);
      clearTimeout(idlePast);
      if (outcome !== 'grace over') return 0;
      const cut = inFlight.size;
      server.closeAllConnections();
      return cut;
    },
  };
}
