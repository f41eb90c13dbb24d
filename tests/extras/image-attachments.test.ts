/**
 * NetBox 3.7's image attachments over real HTTP: multipart/form-data uploads checked by their bytes,
 * stored under the media folder and served back at the URL the object shows; JSON changes the other
 * fields; the database row and the file never diverge (a write that does not commit leaves no file, a
 * replaced or deleted image's file goes once the change has committed); every refusal is a 4xx naming
 * the field.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startTestApp, type TestApp } from '../support/test-app';
import { GIF_1x1, JPEG_1x1, WEBP_1x1, png } from '../support/images';

let t: TestApp;
let site: number;
const URL_PATH = '/api/extras/image-attachments/';

beforeAll(async () => {
  t = await startTestApp();
  site = await made('/api/dcim/sites/', { name: 'Pictured', slug: 'pictured' });
});
afterAll(async () => {
  await t?.close();
});

async function made(url: string, body: object): Promise<number> {
  const res = await t.api.post(url).set(t.auth).send(body);
  if (res.status !== 201) throw new Error(`POST ${url}: ${res.status} ${res.text}`);
  return res.body.id as number;
}

/** A multipart upload: the form's fields, and an image part when `file` is given. */
function upload(app: TestApp, method: 'post' | 'patch' | 'put', url: string, fields: Record<string, string>, file?: { bytes: Buffer; filename: string; type?: string }, auth = app.auth) {
  let req = app.api[method](url).set(auth);
  for (const [k, v] of Object.entries(fields)) req = req.field(k, v);
  if (file) req = req.attach('image', file.bytes, { filename: file.filename, contentType: file.type ?? 'application/octet-stream' });
  return req;
}

/** The files under the media folder's image-attachments/, by name. */
function storedFiles(app = t): string[] {
  const dir = path.join(app.config.mediaRoot, 'image-attachments');
  return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
}

const pathOf = (url: unknown) => new URL(String(url)).pathname;

async function attach(fields: Record<string, string> = {}, bytes = png(7, 5), filename = 'rack front.png') {
  const res = await upload(t, 'post', URL_PATH, { content_type: 'dcim.site', object_id: String(site), ...fields }, { bytes, filename, type: 'image/png' });
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${res.text}`);
  return res.body as Record<string, unknown>;
}

describe('uploading', () => {
  test('a PNG upload answers NetBox\'s representation, its size read from the bytes, and is served back at its URL', async () => {
    const bytes = png(7, 5);
    const res = await upload(t, 'post', URL_PATH, { content_type: 'dcim.site', object_id: String(site), name: 'Front' }, { bytes, filename: 'front.png', type: 'image/png' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['content_type', 'created', 'display', 'id', 'image', 'image_height', 'image_width', 'last_updated', 'name', 'object_id', 'parent', 'url'].sort());
    expect(res.body).toMatchObject({ content_type: 'dcim.site', object_id: site, name: 'Front', display: 'Front', image_width: 7, image_height: 5, parent: { id: site, name: 'Pictured', slug: 'pictured' } });
    expect(res.headers.location).toBe(res.body.url);
    expect(pathOf(res.body.image)).toMatch(/^\/media\/image-attachments\/front(_[A-Za-z0-9]{7})?\.png$/);

    const served = await t.api.get(pathOf(res.body.image)).set(t.auth).buffer(true).parse((r, done) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => done(null, Buffer.concat(chunks)));
    });
    expect([served.status, served.headers['content-type'], served.headers['x-content-type-options']]).toEqual([200, 'image/png', 'nosniff']);
    expect(Buffer.compare(served.body as Buffer, bytes)).toBe(0);

    // URLs carry the request's host, whose port supertest picks afresh for each request.
    const samePort = (body: unknown) => JSON.parse(JSON.stringify(body).replace(/127\.0\.0\.1:\d+/g, 'host'));
    const read = await t.api.get(`${URL_PATH}${res.body.id as number}/`).set(t.auth);
    expect(samePort(read.body)).toEqual(samePort(res.body));
    const brief = await t.api.get(`${URL_PATH}${res.body.id as number}/?brief=1`).set(t.auth);
    expect(Object.keys(brief.body)).toEqual(['id', 'url', 'display', 'name', 'image']);
  });

  test('GIF, JPEG and WebP are told by their bytes: the stored file takes their extension, whatever the upload was called', async () => {
    for (const [bytes, ext] of [[GIF_1x1, 'gif'], [JPEG_1x1, 'jpg'], [WEBP_1x1, 'webp']] as const) {
      const a = await attach({}, bytes, 'photo.txt');
      expect([pathOf(a.image).replace(/_[A-Za-z0-9]{7}\./, '.'), a.image_width, a.image_height, a.display]).toEqual([`/media/image-attachments/photo.${ext}`, 1, 1, path.basename(pathOf(a.image))]);
      const served = await t.api.get(pathOf(a.image)).set(t.auth);
      expect([served.status, served.headers['content-type']]).toEqual([200, { gif: 'image/gif', jpg: 'image/jpeg', webp: 'image/webp' }[ext]]);
    }
  });

  test('two uploads of one file name are kept apart', async () => {
    const [a, b] = await Promise.all([attach({}, png(2, 2), 'same.png'), attach({}, png(3, 3), 'same.png')]);
    expect(pathOf(a.image)).not.toBe(pathOf(b.image));
    expect(storedFiles().filter((f) => f.startsWith('same'))).toHaveLength(2);
  });

  test('a file name is made safe: no folder, no dot first, only letters, digits and ._-', async () => {
    const a = await attach({}, png(1, 1), '../../.hidden évil<script>.png');
    expect(path.basename(pathOf(a.image))).toMatch(/^hidden_evil_script_?(_[A-Za-z0-9]{7})?\.png$/);
  });
});

describe('refusals name the field, and leave no file behind', () => {
  test('bytes that are not an image (SVG, HTML named .png, text) are a 400 on image, whatever the part says it is', async () => {
    const before = storedFiles();
    for (const [bytes, name, type] of [
      [Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), 'x.svg', 'image/svg+xml'],
      [Buffer.from('<html><script>alert(1)</script></html>'), 'x.png', 'image/png'],
      [png(4, 4).subarray(0, 20), 'cut.png', 'image/png'],
      [Buffer.from('just text'), 'x.jpg', 'image/jpeg'],
    ] as const) {
      const res = await upload(t, 'post', URL_PATH, { content_type: 'dcim.site', object_id: String(site) }, { bytes, filename: name, type });
      expect([name, res.status, res.body]).toEqual([name, 400, { image: ['Upload a valid image. The file you uploaded was either not an image or a corrupted image.'] }]);
    }
    const empty = await upload(t, 'post', URL_PATH, { content_type: 'dcim.site', object_id: String(site) }, { bytes: Buffer.alloc(0), filename: 'e.png' });
    expect([empty.status, empty.body]).toEqual([400, { image: ['The submitted file is empty.'] }]);
    expect(storedFiles()).toEqual(before);
  });

  test('an image larger than the height and width fields can hold is a 400 on image', async () => {
    const res = await upload(t, 'post', URL_PATH, { content_type: 'dcim.site', object_id: String(site) }, { bytes: png(40000, 1), filename: 'wide.png' });
    expect([res.status, res.body]).toEqual([400, { image: ['The image is 40000x1 pixels; at most 32767x32767 can be stored.'] }]);
  });

  test('a write that fails after the file is stored (a bad object, a refused type) removes the file again', async () => {
    const before = storedFiles();
    const missing = await upload(t, 'post', URL_PATH, { content_type: 'dcim.site', object_id: '999999' }, { bytes: png(2, 2), filename: 'orphan.png' });
    expect([missing.status, missing.body]).toEqual([400, { object_id: ['Invalid pk "999999" - object does not exist.'] }]);
    const region = await made('/api/dcim/regions/', { name: 'Nowhere', slug: 'nowhere' });
    const refused = await upload(t, 'post', URL_PATH, { content_type: 'dcim.region', object_id: String(region) }, { bytes: png(2, 2), filename: 'orphan.png' });
    expect([refused.status, refused.body]).toEqual([400, { content_type: ['Invalid content type: dcim.region'] }]);
    const long = await upload(t, 'post', URL_PATH, { content_type: 'dcim.site', object_id: String(site), name: 'x'.repeat(51) }, { bytes: png(2, 2), filename: 'orphan.png' });
    expect([long.status, Object.keys(long.body)]).toEqual([400, ['name']]);
    expect(storedFiles()).toEqual(before);
    expect((await t.api.get(`${URL_PATH}?name=${'x'.repeat(51)}`).set(t.auth)).body.count).toBe(0);
  });

  test('JSON cannot carry the image: without one a create is told no file was submitted, with a value that it is not a file', async () => {
    const none = await t.api.post(URL_PATH).set(t.auth).send({ content_type: 'dcim.site', object_id: site, name: 'no file' });
    expect([none.status, none.body]).toEqual([400, { image: ['No file was submitted.'] }]);
    const text = await t.api.post(URL_PATH).set(t.auth).send({ content_type: 'dcim.site', object_id: site, image: 'http://elsewhere/x.png' });
    expect([text.status, text.body]).toEqual([400, { image: ['The submitted data was not a file. Check the encoding type on the form.'] }]);
    const noPart = await upload(t, 'post', URL_PATH, { content_type: 'dcim.site', object_id: String(site) });
    expect([noPart.status, noPart.body]).toEqual([400, { image: ['No file was submitted.'] }]);
    // A file under a name the type has no file field for is ignored, as an unknown field is.
    const elsewhere = await t.api.post(URL_PATH).set(t.auth).field('content_type', 'dcim.site').field('object_id', String(site)).attach('picture', png(1, 1), 'p.png');
    expect([elsewhere.status, elsewhere.body]).toEqual([400, { image: ['No file was submitted.'] }]);
    const twice = await t.api.post(URL_PATH).set(t.auth).field('content_type', 'dcim.site').field('object_id', String(site)).attach('image', png(1, 1), 'a.png').attach('image', png(1, 1), 'b.png');
    expect([twice.status, Object.keys(twice.body)]).toEqual([400, ['image']]);
  });

  test('malformed multipart bodies are a 400 on image', async () => {
    const send = (type: string, body: string) => t.api.post(URL_PATH).set(t.auth).set('Content-Type', type).send(body);
    const noBoundary = await send('multipart/form-data', '--x\r\n\r\n');
    expect([noBoundary.status, Object.keys(noBoundary.body)]).toEqual([400, ['image']]);
    const cut = await send('multipart/form-data; boundary=XyZ', '--XyZ\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\u0089PNG');
    expect([cut.status, Object.keys(cut.body)]).toEqual([400, ['image']]);
    expect(String(cut.body.image[0])).toMatch(/^Multipart form parse error - /);
    const garbage = await send('multipart/form-data; boundary=XyZ', 'not a form at all');
    expect([garbage.status, Object.keys(garbage.body)]).toEqual([400, ['image']]);
  });

  test('a model without file fields still takes JSON only', async () => {
    const res = await t.api.post('/api/dcim/regions/').set(t.auth).field('name', 'Form').field('slug', 'form');
    expect(res.status).toBe(415);
  });
});

describe('size limits', () => {
  let small: TestApp;
  beforeAll(async () => {
    small = await startTestApp({ env: { PATCHBAY_IMAGE_MAX_SIZE: '2048' } });
  });
  afterAll(async () => {
    await small?.close();
  });

  test('a file over PATCHBAY_IMAGE_MAX_SIZE, or a body announced larger than one can be, is refused naming image, and nothing is stored', async () => {
    const target = (await small.api.post('/api/dcim/sites/').set(small.auth).send({ name: 'S', slug: 's' })).body.id as number;
    // Noise does not compress: a 40x40 PNG of random-ish pixels is well over 2048 bytes.
    const big = png(40, 40);
    const noisy = Buffer.concat([big, Buffer.alloc(3000, 7)]);
    const res = await upload(small, 'post', URL_PATH, { content_type: 'dcim.site', object_id: String(target) }, { bytes: noisy, filename: 'big.png' });
    expect([res.status, Object.keys(res.body)]).toEqual([413, ['image']]);
    const announced = await small.api.post(URL_PATH).set(small.auth).set('Content-Type', 'multipart/form-data; boundary=b').set('Content-Length', String(50 * 1024 * 1024)).send('--b--');
    expect([announced.status, Object.keys(announced.body)]).toEqual([413, ['image']]);
    const fits = await upload(small, 'post', URL_PATH, { content_type: 'dcim.site', object_id: String(target) }, { bytes: png(3, 3), filename: 'ok.png' });
    expect(fits.status).toBe(201);
    expect(storedFiles(small)).toEqual([path.basename(pathOf(fits.body.image))]);
  });
});

describe('changing and deleting', () => {
  test('a JSON PATCH changes the name and keeps the image', async () => {
    const a = await attach();
    const res = await t.api.patch(`${URL_PATH}${a.id as number}/`).set(t.auth).send({ name: 'Renamed' });
    expect([res.status, res.body.name, res.body.display, pathOf(res.body.image), res.body.image_width]).toEqual([200, 'Renamed', 'Renamed', pathOf(a.image), 7]);
    expect((await t.api.get(pathOf(a.image)).set(t.auth)).status).toBe(200);
    // Height and width follow the image only.
    const ignored = await t.api.patch(`${URL_PATH}${a.id as number}/`).set(t.auth).send({ image_width: 1 });
    expect(ignored.body.image_width).toBe(7);
  });

  test('a multipart PATCH with a new image replaces the file: the old one is gone once the change commits', async () => {
    const a = await attach({}, png(7, 5), 'before.png');
    const old = path.basename(pathOf(a.image));
    const res = await upload(t, 'patch', `${URL_PATH}${a.id as number}/`, { name: 'After' }, { bytes: png(9, 4), filename: 'after.png' });
    expect([res.status, res.body.name, res.body.image_width, res.body.image_height]).toEqual([200, 'After', 9, 4]);
    expect(pathOf(res.body.image)).not.toBe(pathOf(a.image));
    expect(storedFiles()).not.toContain(old);
    expect(storedFiles()).toContain(path.basename(pathOf(res.body.image)));
    expect((await t.api.get(pathOf(a.image)).set(t.auth)).status).toBe(404);
    expect((await t.api.get(pathOf(res.body.image)).set(t.auth)).status).toBe(200);
  });

  test('a change refused after the new file is stored keeps the old image and removes the new file', async () => {
    const a = await attach({}, png(7, 5), 'keep.png');
    const before = storedFiles();
    const res = await upload(t, 'patch', `${URL_PATH}${a.id as number}/`, { object_id: '999999' }, { bytes: png(2, 2), filename: 'never.png' });
    expect([res.status, Object.keys(res.body)]).toEqual([400, ['object_id']]);
    expect(storedFiles()).toEqual(before);
    expect(pathOf((await t.api.get(`${URL_PATH}${a.id as number}/`).set(t.auth)).body.image)).toBe(pathOf(a.image));
  });

  test('DELETE removes the row, then the file', async () => {
    const a = await attach({}, png(2, 2), 'doomed.png');
    const name = path.basename(pathOf(a.image));
    expect(storedFiles()).toContain(name);
    expect((await t.api.delete(`${URL_PATH}${a.id as number}/`).set(t.auth)).status).toBe(204);
    expect(storedFiles()).not.toContain(name);
    expect((await t.api.get(pathOf(a.image)).set(t.auth)).status).toBe(404);
  });

  test('deleting the object an image is attached to deletes the attachment and its file', async () => {
    const other = await made('/api/dcim/sites/', { name: 'Short lived', slug: 'short-lived' });
    const res = await upload(t, 'post', URL_PATH, { content_type: 'dcim.site', object_id: String(other) }, { bytes: png(2, 2), filename: 'cascade.png' });
    expect(res.status).toBe(201);
    expect((await t.api.delete(`/api/dcim/sites/${other}/`).set(t.auth)).status).toBe(204);
    expect((await t.api.get(`${URL_PATH}${res.body.id as number}/`).set(t.auth)).status).toBe(404);
    expect(storedFiles()).not.toContain(path.basename(pathOf(res.body.image)));
  });
});

describe('serving', () => {
  test('a file is served to those who may view an attachment naming it; anything else under /media/ is a 404', async () => {
    const a = await attach({}, png(2, 2), 'private.png');
    const file = pathOf(a.image);
    const nobody = { Authorization: `Token ${await t.makeToken()}` };
    expect((await t.api.get(file).set(nobody)).status).toBe(404);
    expect((await t.api.get(file)).status).toBe(404);
    const viewer = await t.makeToken({ username: 'viewer' });
    const userId = (await t.knex.raw(`SELECT "user_id" FROM "users_token" WHERE "key" = ?`, [viewer])).rows[0].user_id as number;
    const grant = await t.api.post('/api/users/permissions/').set(t.auth).send({ name: 'see one image', object_types: ['extras.imageattachment'], actions: ['view'], users: [userId], constraints: { id: a.id } });
    expect(grant.status).toBe(201);
    expect((await t.api.get(file).set({ Authorization: `Token ${viewer}` })).status).toBe(200);
    const another = await attach({}, png(2, 2), 'other.png');
    expect((await t.api.get(pathOf(another.image)).set({ Authorization: `Token ${viewer}` })).status).toBe(404);

    for (const bad of ['/media/image-attachments/nothing.png', '/media/../package.json', '/media/image-attachments/..%2f..%2fpackage.json', '/media/image-attachments/', '/media/x.png', '/media/image-attachments/.hidden.png']) {
      expect([bad, (await t.api.get(bad).set(t.auth)).status]).toEqual([bad, 404]);
    }
    expect((await t.api.post(file).set(t.auth)).status).toBe(405);
    expect((await t.api.head(file).set(t.auth)).status).toBe(200);
  });
});

describe('listing', () => {
  test('NetBox\'s filters: content_type, object_id, name, q; OPTIONS describes the upload', async () => {
    const rack = await made('/api/dcim/racks/', { name: 'R1', site });
    const res = await upload(t, 'post', URL_PATH, { content_type: 'dcim.rack', object_id: String(rack), name: 'Rack photo' }, { bytes: png(2, 2), filename: 'r.png' });
    expect(res.status).toBe(201);
    const ids = async (q: string) => ((await t.api.get(`${URL_PATH}?${q}&limit=0`).set(t.auth)).body.results as Array<{ id: number }>).map((r) => r.id);
    expect(await ids('content_type=dcim.rack')).toEqual([res.body.id]);
    expect(await ids(`object_id=${rack}&content_type=dcim.rack`)).toEqual([res.body.id]);
    expect(await ids('q=rack ph')).toEqual([res.body.id]);
    expect(await ids('name__ic=RACK')).toEqual([res.body.id]);
    expect((await ids('content_type__n=dcim.rack')).includes(res.body.id as number)).toBe(false);
    // content_type_id names the type by its content type's id, as NetBox's does.
    const rackType = (await t.api.get('/api/extras/content-types/?app_label=dcim&model=rack').set(t.auth)).body.results[0].id as number;
    const siteType = (await t.api.get('/api/extras/content-types/?app_label=dcim&model=site').set(t.auth)).body.results[0].id as number;
    expect(await ids(`content_type_id=${rackType}`)).toEqual([res.body.id]);
    expect((await ids(`content_type_id=${siteType}`)).length).toBeGreaterThan(0);
    expect((await ids(`content_type_id=${siteType}`)).includes(res.body.id as number)).toBe(false);
    expect((await ids(`content_type_id__n=${siteType}`))).toEqual([res.body.id]);
    const bad = await t.api.get(`${URL_PATH}?content_type_id=dcim.rack`).set(t.auth);
    expect([bad.status, bad.body]).toEqual([400, { content_type_id: ['Enter a number.'] }]);
    const options = await t.api.options(URL_PATH).set(t.auth);
    expect(options.body.actions.POST.image).toMatchObject({ type: 'image upload', required: true, read_only: false });
    expect(options.body.actions.POST.image_height).toMatchObject({ read_only: true });
  });
});
