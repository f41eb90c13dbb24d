import type { TestApp } from '../../support/test-app';
import { png } from '../../support/images';

/** An object as the API answers it: the seed reads its id, and the tests a few other fields. */
export interface ApiObject {
  id: number;
  [field: string]: unknown;
}

/** A list page as the API answers it. */
export interface ApiList {
  count: number;
  results: ApiObject[];
}

/** A write body. */
export type Body = Record<string, unknown>;

/**
 * The seed writes through the API as a NetBox client would, so every row (and its change log entry) is
 * made by the engine's write path. Each call fails loudly with the request and the answer: a seed that
 * silently skips an object would make the import tests prove less than they claim.
 */
export class SeedClient {
  constructor(readonly t: TestApp) {}

  async post(path: string, body: Body): Promise<ApiObject> {
    const res = await this.t.api.post(`/api/${path}/`).set(this.t.auth).send(body);
    if (res.status !== 201) throw new Error(`seed: POST /api/${path}/ ${JSON.stringify(body)}: ${res.status} ${res.text}`);
    return res.body as ApiObject;
  }

  async patch(path: string, id: number, body: Body): Promise<ApiObject> {
    const res = await this.t.api.patch(`/api/${path}/${id}/`).set(this.t.auth).send(body);
    if (res.status !== 200) throw new Error(`seed: PATCH /api/${path}/${id}/ ${JSON.stringify(body)}: ${res.status} ${res.text}`);
    return res.body as ApiObject;
  }

  async delete(path: string, id: number): Promise<void> {
    const res = await this.t.api.delete(`/api/${path}/${id}/`).set(this.t.auth);
    if (res.status !== 204) throw new Error(`seed: DELETE /api/${path}/${id}/: ${res.status} ${res.text}`);
  }

  /** A list (`path` with its query string). */
  async list(path: string): Promise<ApiList> {
    const res = await this.t.api.get(`/api/${path}`).set(this.t.auth);
    if (res.status !== 200) throw new Error(`seed: GET /api/${path}: ${res.status} ${res.text}`);
    return res.body as ApiList;
  }

  /** The one object a filtered list (`path` with its query string) must find. */
  async one(path: string): Promise<ApiObject> {
    const found = await this.list(path);
    if (found.count !== 1 || !found.results[0]) throw new Error(`seed: GET /api/${path} found ${found.count} objects, not one`);
    return found.results[0];
  }

  /** A multipart create with a real PNG in `imageField` (image attachments, device type pictures). */
  async upload(path: string, fields: Record<string, string | number>, imageField: string, size: [number, number], filename: string): Promise<ApiObject> {
    let req = this.t.api.post(`/api/${path}/`).set(this.t.auth);
    for (const [k, v] of Object.entries(fields)) req = req.field(k, String(v));
    const res = await req.attach(imageField, png(size[0], size[1], [20, 120, 200]), { filename, contentType: 'image/png' });
    if (res.status !== 201) throw new Error(`seed: upload to /api/${path}/ ${JSON.stringify(fields)}: ${res.status} ${res.text}`);
    return res.body as ApiObject;
  }
}

/** A generic relation's end as cables take it. */
export const end = (objectType: string, o: ApiObject) => [{ object_type: objectType, object_id: o.id }];
