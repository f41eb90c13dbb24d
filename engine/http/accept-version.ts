import type { NextFunction, Request, Response } from 'express';
import { API_VERSION_HEADER } from './api-root';
import { sendJson } from './respond';

/**
 * NetBox pins its REST API with DRF's AcceptHeaderVersioning: `Accept: application/json; version=3.7`
 * is served, no version means the current one, any other version is a 406 before authentication.
 * The version read is the `version` parameter of the Accept entry that content negotiation picks.
 */

/** What Patchbay renders, in the order DRF's negotiation tries its renderers (JSON before the browsable API). */
const RENDERED = ['application/json', 'text/html', 'application/vnd.oai.openapi+json', 'application/vnd.oai.openapi', 'application/yaml'];

const INVALID_VERSION = 'Invalid version in "Accept" header.';

interface AcceptEntry {
  type: string;
  subtype: string;
  params: Map<string, string>;
}

/** One entry of an Accept header as Django's parse_header reads it: names lower-cased, quoted values unquoted. */
function parseEntry(text: string): AcceptEntry {
  const [full = '', ...rest] = text.split(';');
  const [type = '', subtype = ''] = full.trim().toLowerCase().split('/');
  const params = new Map<string, string>();
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    let value = p.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    params.set(p.slice(0, eq).trim().toLowerCase(), value);
  }
  return { type, subtype, params };
}

/** DRF's precedence: 3 with parameters other than q, 2 type/subtype, 1 type/*, 0 *\/*. */
function precedence(e: AcceptEntry): number {
  if (e.type === '*') return 0;
  if (e.subtype === '*') return 1;
  return [...e.params.keys()].some((k) => k !== 'q') ? 3 : 2;
}

function matches(rendered: string, e: AcceptEntry): boolean {
  const [type, subtype] = rendered.split('/');
  return (e.type === '*' || e.type === type) && (e.subtype === '*' || e.subtype === subtype);
}

/** The entry negotiation accepts: the most specific level first, renderers in order within a level. */
function acceptedEntry(header: string | undefined): AcceptEntry | undefined {
  const entries = (header ?? '*/*').split(',').filter((t) => t.trim()).map(parseEntry);
  for (const level of [3, 2, 1, 0]) {
    const here = entries.filter((e) => precedence(e) === level);
    for (const rendered of RENDERED) {
      const hit = here.find((e) => matches(rendered, e));
      if (hit) return hit;
    }
  }
  return undefined;
}

/** 406 for an Accept header asking for another API version than the one spoken. */
export function acceptVersion(req: Request, res: Response, next: NextFunction): void {
  const version = acceptedEntry(req.headers.accept)?.params.get('version');
  if (version === undefined || version === API_VERSION_HEADER) return next();
  sendJson(req, res, 406, { detail: INVALID_VERSION });
}
