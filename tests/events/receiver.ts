import http from 'node:http';
import net, { type AddressInfo } from 'node:net';

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A real HTTP receiver for webhooks: records every request it answers 2xx (`delivered`) and every request
 * at all (`all`); `answer` decides the status of each (default 200), so a test can fail some.
 */
export async function startReceiver(answer: (r: Received, n: number) => number = () => 200): Promise<{
  url: string;
  all: Received[];
  delivered: Received[];
  close(): Promise<void>;
}> {
  const all: Received[] = [];
  const delivered: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      all.push(r);
      const status = answer(r, all.length);
      if (status >= 200 && status < 300) delivered.push(r);
      res.writeHead(status, { 'Content-Type': 'text/plain' });
      res.end(status < 300 ? 'ok' : 'receiver refused');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    all,
    delivered,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * A TCP server whose connections the test drives itself (`onConnection`): a receiver that never answers,
 * drips bytes, or streams without end. close() ends every connection it still holds.
 */
export async function startRawServer(onConnection: (socket: net.Socket) => void): Promise<{ port: number; url: string; connections: net.Socket[]; close(): Promise<void> }> {
  const connections: net.Socket[] = [];
  const server = net.createServer((socket) => {
    connections.push(socket);
    socket.on('error', () => undefined);
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    connections,
    close: () => {
      for (const s of connections) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** An HTTP receiver that reads each request and never answers it; `requests` holds their bodies, `open` the ones still waiting. */
export async function startHangingReceiver(): Promise<{ url: string; requests: string[]; open(): number; close(): Promise<void> }> {
  const requests: string[] = [];
  const waiting = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push(Buffer.concat(chunks).toString('utf8'));
      waiting.add(res);
      res.on('close', () => waiting.delete(res));
    });
  });
  server.requestTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    open: () => waiting.size,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
