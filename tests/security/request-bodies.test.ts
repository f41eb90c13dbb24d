/**
 * Finding 3: one anonymous request stalled the event loop for seconds — a 20 MB body (deeply nested or
 * a flat array) to /api/users/tokens/provision/ held /api/status/ for 7.3 s, because bodies were
 * buffered and parsed before authentication and before the depth check. Now a body is read only by a
 * handler that needs it, after authentication and the permission check, within DATA_UPLOAD_MAX_MEMORY_SIZE
 * (anonymous forms: 64 KiB), and JSON nesting is refused while the bytes arrive.
 *
 * These tests speak HTTP over a socket so that they can stop sending: each answer must arrive while
 * the client still holds most of its body, which proves the server did not wait to read (or parse) it.
 */
import http from 'node:http';
import { startTestApp, type TestApp } from '../support/test-app';
import { listen } from '../support/listen';

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;

beforeAll(async () => {
  t = await startTestApp();
  server = await listen(t);
});
afterAll(async () => {
  await server?.close();
  await t.close();
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * Starts a request and sends `first` of its body, then waits for the answer without sending the rest.
 * `declared` is the Content-Length announced (chunked when absent). Resolves with the answer and how
 * many body bytes had been sent when it came.
 */
function partialRequest(path: string, opts: { method?: string; headers?: Record<string, string>; declared?: number; first: Buffer }): Promise<{ answer: Answer; sent: number }> {
  const url = new URL(path, server.base);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json', ...opts.headers };
    if (opts.declared !== undefined) headers['Content-Length'] = String(opts.declared);
    const req = http.request(url, { method: opts.method ?? 'POST', headers, agent: false });
    let sent = 0;
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        resolve({ answer: { status: res.statusCode ?? 0, headers: res.headers, body }, sent });
        req.destroy();
      });
    });
    // The server closing on us after its answer is expected; any other error before an answer is not.
    req.on('error', (e) => (sent ? undefined : reject(e)));
    req.write(opts.first, () => (sent += opts.first.length));
  });
}

const MB = 1024 * 1024;

test('an anonymous write with a 20 MB body is refused (403) before its body is read, and the connection is closed', async () => {
  const { answer, sent } = await partialRequest('/api/dcim/sites/', { declared: 20 * MB, first: Buffer.from('[' + '{"name":"x"},'.repeat(1000)) });
  expect(answer.status).toBe(403);
  expect(JSON.parse(answer.body)).toEqual({ detail: 'Authentication credentials were not provided.' });
  expect(answer.headers.connection).toBe('close');
  expect(sent).toBeLessThan(MB);
});

test('token provisioning (anonymous by design) takes at most 64 KiB: a 20 MB body is a 413 at once', async () => {
  const { answer, sent } = await partialRequest('/api/users/tokens/provision/', { declared: 20 * MB, first: Buffer.from('{"username":"') });
  expect(answer.status).toBe(413);
  expect(JSON.parse(answer.body)).toEqual({ detail: 'Request body is larger than 65536 bytes.' });
  expect(sent).toBeLessThan(MB);
});

test('provisioning streamed without a length is cut off at 64 KiB, nested JSON at depth 101, neither parsed', async () => {
  const flat = await partialRequest('/api/users/tokens/provision/', { first: Buffer.from(`[${'0,'.repeat(40_000)}`) });
  expect(flat.answer.status).toBe(413);
  const deep = await partialRequest('/api/users/tokens/provision/', { first: Buffer.from('['.repeat(101)) });
  expect(deep.answer.status).toBe(400);
  expect(JSON.parse(deep.answer.body)).toEqual({ detail: 'JSON parse error - document nested deeper than 100 levels' });
});

test('an authenticated body over DATA_UPLOAD_MAX_MEMORY_SIZE (2.5 MB) is a 413 before it is sent', async () => {
  const { answer, sent } = await partialRequest('/api/dcim/sites/', { declared: 3 * MB, headers: t.auth, first: Buffer.from('[') });
  expect(answer.status).toBe(413);
  expect(JSON.parse(answer.body)).toEqual({ detail: 'Request body is larger than 2621440 bytes.' });
  expect(sent).toBe(1);
});

test('an authenticated body nested 101 deep is refused while streaming: the rest is never sent', async () => {
  const { answer } = await partialRequest('/api/dcim/sites/', { headers: t.auth, first: Buffer.from('{"a":'.repeat(101)) });
  expect(answer.status).toBe(400);
  expect(JSON.parse(answer.body)).toEqual({ detail: 'JSON parse error - document nested deeper than 100 levels' });
});

test('brackets inside strings do not count as nesting; 100 levels are accepted and reach validation', async () => {
  const inString = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: '[{\\"'.repeat(24), slug: 'brackets' });
  expect(inString.status).toBe(201);
  const hundred = await t.api
    .post('/api/dcim/sites/')
    .set(t.auth)
    .set('Content-Type', 'application/json')
    .send(`{"name":"Deep","slug":"deep","custom_fields":${'{"a":'.repeat(98)}1${'}'.repeat(98)}}`);
  expect(hundred.status).toBe(400);
  expect(Object.keys(hundred.body)).toEqual(['custom_fields']);
});

test('while an anonymous client trickles a huge body, the server keeps answering others', async () => {
  const url = new URL('/api/users/tokens/provision/', server.base);
  const slow = http.request(url, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': String(20 * MB) }, agent: false });
  slow.on('error', () => undefined);
  slow.write('{"username":"');
  const status = await fetch(`${server.base}/api/status/`);
  expect(status.status).toBe(200);
  slow.destroy();
});

test('a body announced as something other than JSON is a 415 before it is read', async () => {
  const { answer, sent } = await partialRequest('/api/dcim/sites/', { declared: 2 * MB, headers: { ...t.auth, 'Content-Type': 'text/plain' }, first: Buffer.from('x') });
  expect(answer.status).toBe(415);
  expect(sent).toBe(1);
});
