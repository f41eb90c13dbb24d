import type { NextFunction, Request, Response } from 'express';

/**
 * No page of Patchbay may be framed by another (the login form, the profile page with its token forms,
 * the browsable API, the API documentation): framed, a page can be overlaid and its buttons clicked
 * without the user knowing (clickjacking). NetBox sets X-Frame-Options: SAMEORIGIN; Patchbay frames
 * nothing of its own, so DENY, with CSP's frame-ancestors 'none' for the browsers that read that instead.
 * Set on every answer, so that no HTML answer (an error page included) can be missed; nosniff too, so
 * that no answer is read as another type than it says.
 */
export function frameHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Content-Security-Policy', "frame-ancestors 'none'");
  res.setHeader('X-Content-Type-Options', 'nosniff');
  next();
}
