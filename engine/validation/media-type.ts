/**
 * Media types as a Content-Type header carries them (RFC 9110 §8.3.1): type "/" subtype, then
 * parameters `; name=value`, each part a token (value: a token or a quoted string). Nothing else may
 * reach a header: a CR or LF there would end it (Node refuses to send it at all: a 500).
 */
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
/** A quoted string of visible ASCII, spaces and tabs, with backslash escapes. */
const QUOTED = '"(?:[\\t !#-\\[\\]-~]|\\\\[\\t !-~])*"';
const MEDIA_TYPE = new RegExp(`^(${TOKEN})/(${TOKEN})((?:[ \\t]*;[ \\t]*${TOKEN}=(?:${TOKEN}|${QUOTED}))*)$`);

export interface MediaType {
  /** type/subtype in lower case (the "essence", as the Fetch standard calls it). */
  essence: string;
}

/** The media type the text is, or null when it is not one. */
export function parseMediaType(text: string): MediaType | null {
  const m = MEDIA_TYPE.exec(text);
  return m ? { essence: `${m[1]}/${m[2]}`.toLowerCase() } : null;
}

/** Why a written value is not a media type (the field's 400), or null. */
export function mediaTypeProblem(value: unknown): string | null {
  if (typeof value !== 'string' || value === '') return null;
  return parseMediaType(value) ? null : 'Enter a valid media type, such as text/csv or text/plain; charset=utf-8.';
}

/**
 * Types a browser shows as inert text or data, never running anything in them. Everything else (HTML,
 * XHTML, SVG, XML with its style sheets, scripts, PDF, and whatever a browser may learn to render) is
 * active, or may be.
 */
const INERT = new Set(['text/plain', 'text/csv', 'text/tab-separated-values', 'text/markdown', 'application/json', 'application/yaml', 'text/yaml', 'application/x-yaml', 'text/x-yaml']);

export function isInert(type: MediaType): boolean {
  return INERT.has(type.essence);
}
