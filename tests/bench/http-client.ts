/** The bench's own HTTP calls (discovery, seeding, verification, writes): fetch with the token, bounded by a timeout. */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export interface ApiResponse {
  status: number;
  /** Parsed JSON body; undefined when empty or not JSON. */
  json: JsonValue | undefined;
  text: string;
  bytes: number;
  ms: number;
}

export class ApiClient {
  readonly headers: Record<string, string>;

  constructor(
    readonly baseUrl: string,
    token: string,
    private readonly timeoutMs = 300_000,
  ) {
    if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(baseUrl)) throw new Error(`bench traffic stays on 127.0.0.1, not ${baseUrl}`);
    this.headers = { Authorization: `Token ${token}`, Accept: 'application/json' };
  }

  async request(method: string, path: string, body?: JsonValue): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...this.headers };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const start = performance.now();
    const res = await fetch(this.baseUrl + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await res.text();
    const ms = performance.now() - start;
    let json: JsonValue | undefined;
    if (text) {
      try {
        json = JSON.parse(text) as JsonValue;
      } catch {
        json = undefined;
      }
    }
    return { status: res.status, json, text, bytes: Buffer.byteLength(text), ms };
  }

  /**
   * GETs are retried once on a network error: a keep-alive socket the server closed while idle fails the
   * first write on it. Writes are not retried (a repeated POST would create twice).
   */
  async get(path: string): Promise<ApiResponse> {
    try {
      return await this.request('GET', path);
    } catch (e) {
      if ((e as Error).name === 'TimeoutError') throw e;
      return this.request('GET', path);
    }
  }
}

export function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The `results` and `count` of a paginated list body, or null when the body is not one. */
export function listBody(v: JsonValue | undefined): { count: number; results: JsonObject[] } | null {
  if (!isObject(v) || typeof v.count !== 'number' || !Array.isArray(v.results)) return null;
  return { count: v.count, results: v.results.filter(isObject) };
}

/** A short excerpt of a response for error messages. */
export function excerpt(res: ApiResponse, max = 300): string {
  const t = res.text.replace(/\s+/g, ' ');
  return `HTTP ${res.status}: ${t.length > max ? `${t.slice(0, max)}...` : t}`;
}
