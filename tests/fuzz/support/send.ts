import Test from 'supertest/lib/test';
import type { FuzzRequest } from './fuzz-request';

/** What came back: the status, headers and body bytes, or why nothing did. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** Set when no HTTP answer arrived (connection reset, timeout). */
  error?: string;
  /** The request headers as sent, those supertest adds included (Host, Content-Length, Accept-Encoding...). */
  sentHeaders: Record<string, string>;
}

/** The headers Node actually wrote for the request, once it has been made. */
function headersSent(test: Test): Record<string, string> {
  const req = (test as unknown as { req?: { getHeaders(): Record<string, unknown> } }).req;
  return Object.fromEntries(Object.entries(req?.getHeaders() ?? {}).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]));
}

/** Sends one request with supertest to a listening server, bytes as given, no redirects followed, body kept raw. */
export async function send(base: string, r: FuzzRequest): Promise<Answer> {
  const test = new Test(base, r.method, r.path);
  test.redirects(0);
  test.ok(() => true);
  test.timeout({ response: 120_000, deadline: 180_000 });
  test.buffer(true);
  test.parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => done(null, Buffer.concat(chunks)));
  });
  for (const [k, v] of Object.entries(r.headers)) test.set(k, v);
  if (r.body !== undefined) {
    // The bytes as they are: superagent would otherwise serialise a Buffer by the Content-Type.
    test.serialize((b: unknown) => b as string);
    test.send(r.body);
  }
  try {
    const res = await test;
    return { status: res.status, headers: res.headers as Answer['headers'], body: Buffer.isBuffer(res.body) ? res.body : Buffer.alloc(0), sentHeaders: headersSent(test) };
  } catch (e) {
    const err = e as { code?: string; message?: string; response?: { status: number; headers: Answer['headers']; body: unknown } };
    const sentHeaders = headersSent(test);
    if (err.response) return { status: err.response.status, headers: err.response.headers, body: Buffer.isBuffer(err.response.body) ? err.response.body : Buffer.alloc(0), sentHeaders };
    return { status: 0, headers: {}, body: Buffer.alloc(0), error: `${err.code ?? ''} ${err.message ?? String(e)}`.trim(), sentHeaders };
  }
}
