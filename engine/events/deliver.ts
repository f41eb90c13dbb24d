import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { renderTemplate, type TemplateLimits } from '../templates/render-template';

/** A webhook as the dispatcher reads it (the model playing the webhook role). */
export interface WebhookRow {
  payload_url: string;
  http_method: string;
  http_content_type: string;
  additional_headers: string;
  body_template: string;
  secret: string;
  ssl_verification: boolean;
  ca_file_path: string | null;
}

/** NetBox's webhook context: what the JSON body holds, and what templates see. */
export interface EventContext {
  event: string;
  timestamp: string;
  model: string;
  username: string;
  request_id: string;
  data: unknown;
  snapshots: unknown;
}

export type Outcome = { ok: true; status: number } | { ok: false; status: number | null; error: string };

/** NetBox's generate_signature: HMAC-SHA512 of the body with the secret, hex. */
export function signature(body: Buffer, secret: string): string {
  return crypto.createHmac('sha512', secret).update(body).digest('hex');
}

async function render(code: string, context: EventContext, limits: TemplateLimits): Promise<string> {
  // The project's bounded template sandbox (a worker thread with time, memory and output limits).
  const r = await renderTemplate(code, context as unknown as Record<string, unknown>, {}, limits);
  if (!r.ok) throw new Error(r.message);
  return r.text;
}

/** NetBox's render_headers: "Name: Value" lines of the rendered additional_headers. */
async function extraHeaders(hook: WebhookRow, context: EventContext, limits: TemplateLimits): Promise<Record<string, string>> {
  if (!hook.additional_headers.trim()) return {};
  const out: Record<string, string> = {};
  for (const line of (await render(hook.additional_headers, context, limits)).split(/\r?\n/)) {
    if (!line.trim()) continue;
    const at = line.indexOf(':');
    if (at < 0) throw new Error(`invalid header line (Name: Value): ${line}`);
    out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return out;
}

/** The request NetBox's send_webhook makes: URL, headers and body, rendered and signed. */
export async function buildRequest(hook: WebhookRow, context: EventContext, limits: TemplateLimits): Promise<{ url: string; headers: Record<string, string>; body: Buffer }> {
  const headers: Record<string, string> = { 'Content-Type': hook.http_content_type, ...(await extraHeaders(hook, context, limits)) };
  const body = Buffer.from(hook.body_template.trim() ? await render(hook.body_template, context, limits) : JSON.stringify(context), 'utf8');
  if (hook.secret) headers['X-Hook-Signature'] = signature(body, hook.secret);
  const url = hook.payload_url.includes('{') ? (await render(hook.payload_url, context, limits)).trim() : hook.payload_url;
  return { url, headers, body };
}

/** Sends one webhook; a 2xx answer is a delivery, anything else (or no answer in time) a failure. */
export async function deliver(hook: WebhookRow, context: EventContext, limits: TemplateLimits, timeoutMs: number): Promise<Outcome> {
  let req: Awaited<ReturnType<typeof buildRequest>>;
  let url: URL;
  try {
    req = await buildRequest(hook, context, limits);
    url = new URL(req.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`unsupported URL scheme ${url.protocol}`);
  } catch (e) {
    return { ok: false, status: null, error: (e as Error).message };
  }
  let ca: Buffer | undefined;
  if (url.protocol === 'https:' && hook.ssl_verification && hook.ca_file_path) {
    try {
      ca = await fs.readFile(hook.ca_file_path);
    } catch (e) {
      return { ok: false, status: null, error: `cannot read ca_file_path: ${(e as Error).message}` };
    }
  }
  return new Promise<Outcome>((resolve) => {
    const options: https.RequestOptions = {
      method: hook.http_method,
      headers: { ...req.headers, 'Content-Length': String(req.body.length), 'User-Agent': 'Patchbay webhook' },
      timeout: timeoutMs,
      ...(url.protocol === 'https:' ? { rejectUnauthorized: hook.ssl_verification, ...(ca ? { ca } : {}) } : {}),
    };
    const send = url.protocol === 'https:' ? https.request : http.request;
    const r = send(url, options, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        // Only the start of an answer is kept, for the error message.
        if (size < 500) chunks.push(c);
        size += c.length;
      });
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        if (status >= 200 && status <= 299) resolve({ ok: true, status });
        else resolve({ ok: false, status, error: `Status ${status} returned: ${Buffer.concat(chunks).toString('utf8').slice(0, 500)}` });
      });
      res.on('error', (e) => resolve({ ok: false, status: res.statusCode ?? null, error: e.message }));
    });
    r.on('timeout', () => r.destroy(new Error(`no answer within ${timeoutMs / 1000} seconds`)));
    r.on('error', (e) => resolve({ ok: false, status: null, error: e.message }));
    r.end(req.body);
  });
}
