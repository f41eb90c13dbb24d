/** One request of the fuzz run, exactly as sent: replayable by hand from its description. */
export interface FuzzRequest {
  /** Which input surface the case aims at (the table at the end counts by it). */
  surface: string;
  /** Which of the run's server settings answers it (see SETTINGS in generate.ts). */
  settings: string;
  method: string;
  /** Path and query string, percent-encoded as sent. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Whether an HTML answer is acceptable: a page (login, profile, docs) or a request that asks for one. */
  htmlOk: boolean;
  /** Requests sent first, as part of the case (a permission rewritten before acting under it); judged alike. */
  setup?: FuzzRequest[];
}

const MAX_SHOWN = 4000;

/** The body as JSON-escaped text (bytes that are not UTF-8 shown as \xNN), cut when long. */
export function showBytes(body: Buffer): string {
  let text = '';
  for (let i = 0; i < body.length && text.length < MAX_SHOWN; ) {
    const b = body[i]!;
    const len = b < 0x80 ? 1 : b >> 5 === 6 ? 2 : b >> 4 === 14 ? 3 : b >> 3 === 30 ? 4 : 0;
    const chunk = len ? body.subarray(i, i + len) : null;
    const decoded = chunk && chunk.length === len ? new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }) : null;
    let ch: string | null = null;
    try {
      ch = decoded ? decoded.decode(chunk!) : null;
    } catch {
      ch = null;
    }
    if (ch === null || (len === 3 && ch.length === 1 && ch >= '\ud800' && ch <= '\udfff')) {
      text += `\\x${b.toString(16).padStart(2, '0')}`;
      i++;
      continue;
    }
    text += JSON.stringify(ch).slice(1, -1);
    i += len;
  }
  return `"${text}"${body.length > MAX_SHOWN ? ` (${body.length} bytes, first ${MAX_SHOWN} characters shown)` : ''}`;
}

export function describeRequest(r: FuzzRequest): string {
  const setup = (r.setup ?? []).map((s) => `(first) ${describeOne(s)}`);
  return [...setup, describeOne(r)].join('\n');
}

function describeOne(r: FuzzRequest): string {
  const cut = (s: string) => (s.length > 600 ? `${JSON.stringify(s.slice(0, 600))}... (${s.length} characters)` : JSON.stringify(s));
  const headers = Object.entries(r.headers).map(([k, v]) => `  ${k}: ${cut(v)}`);
  return [`${r.method} ${cut(r.path)}   (server settings: ${r.settings})`, ...headers, r.body ? `  body: ${showBytes(r.body)}` : '  (no body)'].join('\n');
}
