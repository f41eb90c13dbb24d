import http from 'node:http';
import type { AddressInfo } from 'node:net';

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
