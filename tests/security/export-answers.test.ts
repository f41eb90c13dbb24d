/**
 * Section 3 of the attacker's trial: an export template served as text/html (as_attachment false) ran
 * its script on the API's own origin, with the reader's session, and minted an admin token (the browser
 * side of that is tests/browser/export-sandbox.test.ts). Every ?export= answer is now sandboxed
 * (Content-Security-Policy: sandbox) and never sniffed (nosniff); a type a browser may run anything in
 * (HTML, XHTML, SVG, XML...) is always an attachment; and a template's MIME type must be a media type
 * when written (a CR or LF in it made every export of it a 500).
 */
import { startTestApp, type TestApp } from '../support/test-app';
import { made } from './support';

let t: TestApp;
const TEMPLATES = '/api/extras/export-templates/';
const SCRIPT = '<script>document.title = "ran"</script>{% for s in queryset %}{{ s.name }}{% endfor %}';

beforeAll(async () => {
  t = await startTestApp();
  await made(t, '/api/dcim/sites/', { name: 'Export site', slug: 'export-site' });
});
afterAll(async () => {
  await t.close();
});

async function template(name: string, body: Record<string, unknown>): Promise<number> {
  return made(t, TEMPLATES, { name, content_types: ['dcim.site'], template_code: SCRIPT, ...body });
}

async function exported(name: string) {
  // Read as bytes, whatever the type says (a template's output is not JSON for being called so).
  const res = await t.api.get(`/api/dcim/sites/?export=${name}`).set(t.auth).buffer(true).parse((r, done) => {
    const chunks: Buffer[] = [];
    r.on('data', (c: Buffer) => chunks.push(c));
    r.on('end', () => done(null, Buffer.concat(chunks).toString('utf8')));
  });
  expect([name, res.status]).toEqual([name, 200]);
  return res;
}

test('an active type is an attachment whatever as_attachment says, sandboxed and never sniffed', async () => {
  const types = ['text/html', 'text/html; charset=utf-8', 'application/xhtml+xml', 'image/svg+xml', 'text/xml', 'application/xml', 'application/rss+xml', 'text/javascript', 'application/pdf', 'text/x-anything'];
  for (const [i, mime] of types.entries()) {
    await template(`active${i}`, { mime_type: mime, as_attachment: false, file_extension: 'html' });
    const res = await exported(`active${i}`);
    expect(res.body).toBe('<script>document.title = "ran"</script>Export site');
    expect([mime, res.headers['content-type'], res.headers['content-disposition']]).toEqual([mime, mime, 'attachment; filename="netbox_sites.html"']);
    expect([mime, res.headers['content-security-policy']]).toEqual([mime, "sandbox; default-src 'none'; frame-ancestors 'none'"]);
    expect([mime, res.headers['x-content-type-options']]).toEqual([mime, 'nosniff']);
    expect(res.headers['x-frame-options']).toBe('DENY');
  }
});

test('an inert type may still be shown inline when the template asks, and is sandboxed too', async () => {
  for (const [i, mime] of ['text/csv', 'text/plain; charset=utf-8', 'application/json', ''].entries()) {
    await template(`inert${i}`, { mime_type: mime, as_attachment: false });
    const res = await exported(`inert${i}`);
    expect([mime, res.headers['content-disposition']]).toEqual([mime, undefined]);
    expect([mime, res.headers['content-type']]).toEqual([mime, mime || 'text/plain; charset=utf-8']);
    expect([mime, res.headers['content-security-policy']]).toEqual([mime, "sandbox; default-src 'none'; frame-ancestors 'none'"]);
    expect([mime, res.headers['x-content-type-options']]).toEqual([mime, 'nosniff']);
  }
  await template('inert-attached', { mime_type: 'text/csv', file_extension: 'csv' });
  expect((await exported('inert-attached')).headers['content-disposition']).toBe('attachment; filename="netbox_sites.csv"');
});

test('a MIME type that is not a media type is a 400 naming mime_type, on create and on change', async () => {
  for (const bad of ['text/html\r\nX-Injected: 1', 'text/plain\n', 'html', 'text/', 'text/csv; charset', 'text/csv;', 'tëxt/csv', 'text /csv']) {
    const res = await t.api.post(TEMPLATES).set(t.auth).send({ name: 'bad', content_types: ['dcim.site'], template_code: 'x', mime_type: bad });
    expect([bad, res.status, Object.keys(res.body)]).toEqual([bad, 400, ['mime_type']]);
  }
  const good = await template('good', { mime_type: 'text/csv; charset="utf-8"' });
  const patched = await t.api.patch(`${TEMPLATES}${good}/`).set(t.auth).send({ mime_type: 'text/csv\r\nSet-Cookie: a=b' });
  expect([patched.status, Object.keys(patched.body)]).toEqual([400, ['mime_type']]);
  expect((await exported('good')).headers['content-type']).toBe('text/csv; charset="utf-8"');
});

test('a MIME type stored before it was checked, and a file extension no header may hold, do not make a 500', async () => {
  const id = await template('legacy', { mime_type: 'text/csv', file_extension: 'csv' });
  await t.knex.raw(`UPDATE "extras_exporttemplate" SET "mime_type" = ?, "file_extension" = ? WHERE "id" = ?`, ['text/html\r\nX-Injected: 1', 'c"s\r\nv', id]);
  const res = await exported('legacy');
  expect(res.headers['content-type']).toBe('application/octet-stream');
  expect(res.headers['content-disposition']).toBe('attachment; filename="netbox_sites.csv"');
  expect(res.headers['x-injected']).toBeUndefined();
});
