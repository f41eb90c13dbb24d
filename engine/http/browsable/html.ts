/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A string worth a link: an absolute http(s) URL without spaces or quotes. */
export function isLinkable(s: string): boolean {
  return /^https?:\/\/[^\s"'<>`]+$/i.test(s) && s.length <= 2048;
}

/** A link; one leaving this API's origin is marked so the browser sends no referrer. */
export function link(href: string, text: string, origin: string, extra = ''): string {
  const foreign = !href.startsWith(`${origin}/`) && !href.startsWith('/');
  const rel = foreign ? ' rel="nofollow noopener noreferrer"' : '';
  return `<a href="${escapeHtml(href)}"${rel}${extra}>${escapeHtml(text)}</a>`;
}
