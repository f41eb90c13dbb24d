import type { TestApp } from './test-app';
import { png } from './images';

/** What sendObject needs to know of a type (the engine's resolved models and the filter suite's both fit). */
export interface HasFields {
  fieldList: ReadonlyArray<{ kind: string; name: string }>;
}

/** Whether a type's objects are written with a file (it has image fields). */
export const takesFiles = (model: HasFields): boolean => model.fieldList.some((f) => f.kind === 'image');

/**
 * Writes an object as a client would: JSON, or, for a type with image fields, a multipart/form-data form
 * (the body's values as form fields, a list as repeated fields) with a small PNG for each image field the
 * body does not leave out. Generated suites use it so that every type, those needing a file included,
 * can be made from its definition.
 */
export function sendObject(t: TestApp, method: 'post' | 'put' | 'patch', url: string, model: HasFields, body: unknown, auth: Record<string, string> = t.auth) {
  const req = t.api[method](url).set(auth);
  if (!takesFiles(model) || body === null || typeof body !== 'object' || Array.isArray(body)) return req.send(body as object);
  let form = req;
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    // A null is left out: a form has no null, and an omitted field takes its default.
    if (value === undefined || value === null || model.fieldList.some((f) => f.kind === 'image' && f.name === key)) continue;
    for (const v of Array.isArray(value) ? value : [value]) {
      if (v !== null && typeof v === 'object') throw new Error(`${key}: a form field cannot hold ${JSON.stringify(v)}`);
      form = form.field(key, String(v));
    }
  }
  for (const f of model.fieldList) {
    if (f.kind === 'image' && (method !== 'patch' || f.name in (body as object))) form = form.attach(f.name, png(3, 2), { filename: `${f.name}.png`, contentType: 'image/png' });
  }
  return form;
}
