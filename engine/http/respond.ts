import type { Request, Response } from 'express';

/** `Accept: application/json; indent=4` asks for indented JSON, as DRF's JSON renderer honours. */
function indentOf(req: Request): number | undefined {
  const accept = req.headers.accept;
  if (!accept) return undefined;
  const m = /(?:^|[,\s])application\/json\s*;[^,]*indent=(\d{1,2})/i.exec(accept);
  return m ? Math.min(Number(m[1]), 16) : undefined;
}

/** Installed by the browsable API (engine/http/browsable) on a browser's request: the same body as a page, or null to send JSON. */
export type HtmlRenderer = (status: number, body: unknown) => string | null;

/**
 * A body PostgreSQL has already written as JSON text: sent as it is, never parsed and encoded again —
 * unless a browser wants the page around it or the client asked for indented JSON.
 */
export function sendJsonText(req: Request, res: Response, status: number, text: string): void {
  if (res.locals.htmlRenderer || indentOf(req) !== undefined) return sendJson(req, res, status, JSON.parse(text));
  res.status(status).type('application/json').send(text);
}

export function sendJson(req: Request, res: Response, status: number, body: unknown): void {
  const page = (res.locals.htmlRenderer as HtmlRenderer | undefined)?.(status, body);
  if (typeof page === 'string') {
    res.status(status).type('text/html; charset=utf-8').send(page);
    return;
  }
  const text = JSON.stringify(body, null, indentOf(req));
  res.status(status).type('application/json').send(text);
}
