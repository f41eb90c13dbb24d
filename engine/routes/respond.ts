import type { Request, Response } from 'express';

/** `Accept: application/json; indent=4` asks for indented JSON, as DRF's JSON renderer honours. */
function indentOf(req: Request): number | undefined {
  const accept = req.headers.accept;
  if (!accept) return undefined;
  const m = /(?:^|[,\s])application\/json\s*;[^,]*indent=(\d{1,2})/i.exec(accept);
  return m ? Math.min(Number(m[1]), 16) : undefined;
}

export function sendJson(req: Request, res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body, null, indentOf(req));
  res.status(status).type('application/json').send(text);
}
