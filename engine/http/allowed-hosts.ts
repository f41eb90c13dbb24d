import type { NextFunction, Request, Response } from 'express';
import type { Config } from '../config';
import { sendJson } from './respond';

/** A Host header as Django accepts it: a name or an address, with an optional port. */
const HOST = /^([a-z0-9.-]+|\[[a-f0-9]*:[a-f0-9.:]+\])(?::\d{1,5})?$/i;

/** The host name without its port (and without a trailing dot), lower case. */
function hostName(host: string): string {
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '');
  return name.replace(/\.$/, '').toLowerCase();
}

/** Django's rule: '*' matches any host, '.example.com' the domain and its subdomains, anything else exactly. */
export function hostAllowed(allowed: readonly string[], host: string): boolean {
  const name = hostName(host);
  return allowed.some((pattern) => {
    const p = pattern.toLowerCase();
    if (p === '*') return true;
    if (p.startsWith('.')) return name === p.slice(1) || name.endsWith(p);
    return name === p;
  });
}

/**
 * Every absolute URL in an answer is built from the Host header, so only the hosts ALLOWED_HOSTS
 * names are served (Django's protection against host header poisoning), and only those a URL can be
 * made of; others get a 400.
 */
export function allowedHosts(config: Config) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const host = req.headers.host ?? '';
    // The shape alone lets through a port past 65535 or an IPv4-looking name no URL can hold (999.999.999.999);
    // answers build their links from the Host, so it must make a URL.
    if (HOST.test(host) && URL.canParse(`http://${host}/`) && hostAllowed(config.allowedHosts, host)) return next();
    res.setHeader('Connection', 'close');
    sendJson(req, res, 400, { detail: `Invalid HTTP_HOST header: '${host.slice(0, 100)}'. You may need to add it to ALLOWED_HOSTS.` });
  };
}
