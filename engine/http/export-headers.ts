import type { Response } from 'express';
import { isInert, parseMediaType } from '../validation/media-type';

/** What an export template says about its answer. */
export interface ExportShape {
  mime: string;
  extension: string;
  attachment: boolean;
}

const DEFAULT_TYPE = 'text/plain; charset=utf-8';
/** A stored MIME type that is not a media type (written before they were checked) is sent as bytes to save. */
const UNKNOWN_TYPE = 'application/octet-stream';

/**
 * The headers of an `?export=` answer. A template's text is anyone's who may write export templates, and
 * the answer comes from the API's own origin, where a page that ran script would act with the reader's
 * session: so it never runs. The answer is sandboxed (Content-Security-Policy: sandbox: no script, an
 * origin of its own), never sniffed into another type (nosniff), and saved rather than shown unless its
 * type is one a browser shows as inert text (text/plain, text/csv, JSON...): an HTML, XHTML, SVG or XML
 * template is an attachment whatever its as_attachment says.
 */
export function setExportHeaders(res: Response, template: ExportShape, basename: string): void {
  const type = template.mime === '' ? DEFAULT_TYPE : parseMediaType(template.mime) ? template.mime : UNKNOWN_TYPE;
  const inert = isInert(parseMediaType(type)!);
  res.setHeader('Content-Type', type);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', "sandbox; default-src 'none'; frame-ancestors 'none'");
  if (template.attachment || !inert) {
    // The extension is the template's text too: only what a file name may safely hold reaches the header.
    const extension = template.extension.replace(/[^A-Za-z0-9._-]/g, '');
    res.setHeader('Content-Disposition', `attachment; filename="${basename}${extension ? `.${extension}` : ''}"`);
  }
}
