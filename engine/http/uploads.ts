import path from 'node:path';
import type { Request, Response } from 'express';
import type { ResolvedField, ResolvedModel } from '../definitions/registry-types';
import type { CallContext } from './api-context';
import type { StoredUpload } from '../writes/prepare-write';
import { HttpError } from './http-error';
import { parseJsonBody } from './json-body';
import { isMultipart, parseMultipart } from './multipart-body';
import { inspectImage, type ImageInfo } from '../validation/image-header';
import { fileFields, removeFiles, storeFile } from '../writes/stored-files';

/** A write's body, and the files uploaded with it, already stored (by image field name). */
export interface WriteBody {
  body: unknown;
  files?: Map<string, StoredUpload>;
}

/** Django's ImageField messages. */
const NOT_AN_IMAGE = 'Upload a valid image. The file you uploaded was either not an image or a corrupted image.';
const EMPTY_FILE = 'The submitted file is empty.';

/** The largest pixel size an image field's height and width fields can hold (their definitions' max). */
function sizeLimit(model: ResolvedModel, field: ResolvedField, which: 'height_field' | 'width_field'): number {
  const name = field.def[which];
  return (name ? model.fields.get(name)?.def.max : undefined) ?? Number.MAX_SAFE_INTEGER;
}

/** What an uploaded file is, or the 400 that says why it is not an image this field takes. */
function checkedImage(model: ResolvedModel, field: ResolvedField, bytes: Buffer): ImageInfo {
  if (!bytes.length) throw new HttpError(400, { [field.name]: [EMPTY_FILE] });
  const info = inspectImage(bytes);
  if (!info) throw new HttpError(400, { [field.name]: [NOT_AN_IMAGE] });
  const maxHeight = sizeLimit(model, field, 'height_field');
  const maxWidth = sizeLimit(model, field, 'width_field');
  if (info.height > maxHeight || info.width > maxWidth) {
    throw new HttpError(400, { [field.name]: [`The image is ${info.width}x${info.height} pixels; at most ${maxWidth}x${maxHeight} can be stored.`] });
  }
  return info;
}

/**
 * The body of a create or change: JSON, or, for a model with image fields, a multipart/form-data form
 * whose files are checked by their bytes (PNG, JPEG, GIF or WebP, within the size limits) and stored
 * before the write runs. If the write then fails, the caller discards them (discardUploads).
 */
export async function writeBody(ctx: CallContext, req: Request, res: Response, model: ResolvedModel): Promise<WriteBody> {
  const fields = fileFields(model);
  if (!fields.length || !isMultipart(req.headers['content-type'])) return { body: await parseJsonBody(req, res, ctx.config.dataUploadMaxMemorySize) };
  const form = await parseMultipart(req, res, { fileFields: fields.map((f) => f.name), maxFileBytes: ctx.config.imageMaxSize, maxFieldBytes: ctx.config.dataUploadMaxMemorySize });
  const checked = fields.flatMap((field) => {
    const file = form.files.get(field.name);
    return file ? [{ field, file, info: checkedImage(model, field, file.bytes) }] : [];
  });
  const files = new Map<string, StoredUpload>();
  try {
    for (const { field, file, info } of checked) {
      // The original name, without its extension: the stored file takes the one its bytes call for.
      const base = path.basename(file.filename.replace(/\\/g, '/')).replace(/\.[^.]*$/, '');
      const stored = await storeFile(ctx.config.mediaRoot, field.def.upload_to!, base, info.extension, file.bytes, field.def.max_length ?? 100);
      files.set(field.name, { path: stored, width: info.width, height: info.height });
    }
  } catch (e) {
    await discardUploads(ctx, files);
    throw e;
  }
  return { body: form.fields, files };
}

/** Removes files stored for a write that did not commit: no row names them. */
export async function discardUploads(ctx: CallContext, files: ReadonlyMap<string, StoredUpload> | undefined): Promise<void> {
  if (files?.size) await removeFiles(ctx.config.mediaRoot, [...files.values()].map((f) => f.path));
}
