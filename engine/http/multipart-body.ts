import Busboy from 'busboy';
import type { Request, Response } from 'express';
import { HttpError } from './http-error';
import { readBody } from './request-body';

/** Whether a Content-Type names an HTML form with files (multipart/form-data). */
export function isMultipart(contentType: string | undefined): boolean {
  return !!contentType && contentType.split(';')[0]!.trim().toLowerCase() === 'multipart/form-data';
}

/** A form's fields (a name given twice is a list) and its files, by field name. */
export interface MultipartBody {
  fields: Record<string, string | string[]>;
  files: Map<string, { filename: string; bytes: Buffer }>;
}

export interface MultipartLimits {
  /** The form fields that take a file; a file under another name is ignored, as an unknown field is. */
  fileFields: readonly string[];
  /** Bytes one file may have. */
  maxFileBytes: number;
  /** Bytes all the other fields together may have (DATA_UPLOAD_MAX_MEMORY_SIZE). */
  maxFieldBytes: number;
}

/** Fields a form may have at most (Django's DATA_UPLOAD_MAX_NUMBER_FIELDS). */
const MAX_FIELDS = 1000;

/**
 * A multipart/form-data body, read (at most one file's worth per file field, plus the fields) and parsed
 * once the caller is known and allowed. Every refusal is a 4xx naming the field it concerns: the file
 * field for a body too large to hold its file or a form that cannot be parsed, the field itself for one
 * too long.
 */
export async function parseMultipart(req: Request, res: Response, limits: MultipartLimits): Promise<MultipartBody> {
  const blame = limits.fileFields[0] ?? 'non_field_errors';
  const maxBytes = limits.maxFileBytes * Math.max(1, limits.fileFields.length) + limits.maxFieldBytes;
  let raw: Buffer;
  try {
    raw = await readBody(req, res, { maxBytes, json: false });
  } catch (e) {
    if (e instanceof HttpError && e.status === 413) {
      throw new HttpError(413, { [blame]: [`The upload is too large: a file may have at most ${limits.maxFileBytes} bytes.`] }, e.headers);
    }
    throw e;
  }
  const bad = (field: string, message: string) => new HttpError(400, { [field]: [message] });
  return new Promise<MultipartBody>((resolve, reject) => {
    let bb: Busboy.Busboy;
    try {
      bb = Busboy({
        headers: req.headers,
        // File names as browsers and requests send them, in UTF-8 (busboy's default would read them as Latin-1).
        defParamCharset: 'utf8',
        limits: { fileSize: limits.maxFileBytes, files: Math.max(1, limits.fileFields.length), fields: MAX_FIELDS, fieldSize: limits.maxFieldBytes, parts: MAX_FIELDS + limits.fileFields.length },
      });
    } catch (e) {
      reject(bad(blame, `Multipart form parse error - ${(e as Error).message}`));
      return;
    }
    const fields = new Map<string, string | string[]>();
    const files = new Map<string, { filename: string; bytes: Buffer }>();
    let failed: HttpError | null = null;
    const fail = (e: HttpError) => {
      failed ??= e;
    };
    bb.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      const wanted = limits.fileFields.includes(name);
      if (wanted && files.has(name)) fail(bad(name, 'Upload one file only.'));
      stream.on('data', (chunk: Buffer) => {
        if (wanted) chunks.push(chunk);
      });
      // A part cut short fails its stream too: the form's own error says why.
      stream.on('error', () => undefined);
      stream.on('limit', () => fail(new HttpError(413, { [name]: [`The file is too large: it may have at most ${limits.maxFileBytes} bytes.`] })));
      stream.on('end', () => {
        if (wanted && !files.has(name)) files.set(name, { filename: info.filename ?? '', bytes: Buffer.concat(chunks) });
      });
    });
    bb.on('field', (name, value, info) => {
      if (info.nameTruncated || info.valueTruncated) return fail(bad(name || blame, `The field is too large: the form's fields may have at most ${limits.maxFieldBytes} bytes.`));
      const had = fields.get(name);
      fields.set(name, had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value]);
    });
    bb.on('filesLimit', () => fail(bad(blame, 'Upload one file per file field.')));
    bb.on('fieldsLimit', () => fail(bad(blame, `The form may have at most ${MAX_FIELDS} fields.`)));
    bb.on('partsLimit', () => fail(bad(blame, `The form may have at most ${MAX_FIELDS} fields.`)));
    bb.on('error', (e: Error) => reject(failed ?? bad(blame, `Multipart form parse error - ${e.message}`)));
    bb.on('close', () => (failed ? reject(failed) : resolve({ fields: Object.fromEntries(fields), files })));
    bb.end(raw);
  });
}
