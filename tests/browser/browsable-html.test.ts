/**
 * The browsable API at the HTTP level (no browser needed): which requests get a page, that the page
 * holds exactly the JSON the API gives that caller, with links, allowed methods, pagination and the
 * endpoint's filters, and that nothing in the data is interpreted as markup.
 */
import { filterTable } from '../../engine/filters/filter-table';
import { startTestApp, type TestApp } from '../support/test-app';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
/** supertest serves each request on a new port: a fixed Host keeps the URLs in the JSON and the page comparable. */
const HOST = { Host: 'patchbay.test' };

let t: TestApp;
const siteIds: number[] = [];

beforeAll(async () => {
  t = await startTestApp();
  for (const [name, slug] of [['<script>alert(1)</script>', 'evil'], ['Oslo', 'osl1'], ['Paris & "Co"', 'par1']]) {
    const r = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name, slug });
    expect(r.status).toBe(201);
    siteIds.push(r.body.id as number);
  }
});
afterAll(async () => {
  await t?.close();
});

const unescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

/** The JSON shown on the page, read back from its <pre>. */
function shownJson(html: string): unknown {
  const m = /<pre class="json" id="response" tabindex="0">([\s\S]*?)<\/pre>/.exec(html);
  expect(m).not.toBeNull();
  return JSON.parse(unescape(m![1]!.replace(/<[^>]+>/g, '')));
}

function shownText(html: string): string {
  const m = /<pre class="json" id="response" tabindex="0">([\s\S]*?)<\/pre>/.exec(html);
  return unescape(m![1]!.replace(/<[^>]+>/g, ''));
}

describe('negotiation', () => {
  test('a browser gets a page; curl, clients and ?format=json get JSON; ?format=api forces the page', async () => {
    const page = await t.api.get('/api/').set(HOST).set('Accept', BROWSER_ACCEPT);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html; charset=utf-8/);
    expect(page.headers.vary).toMatch(/Accept/);
    for (const accept of ['*/*', 'application/json', 'application/json; indent=4', 'application/json, text/html']) {
      const r = await t.api.get('/api/').set(HOST).set('Accept', accept);
      expect([accept, r.headers['content-type']]).toEqual([accept, expect.stringMatching(/^application\/json/)]);
    }
    expect((await t.api.get('/api/').set(HOST)).headers['content-type']).toMatch(/^application\/json/);
    expect((await t.api.get('/api/?format=json').set(HOST).set('Accept', BROWSER_ACCEPT)).headers['content-type']).toMatch(/^application\/json/);
    expect((await t.api.get('/api/?format=api').set(HOST)).headers['content-type']).toMatch(/^text\/html/);
  });

  test('writes are never rendered: a POST from a browser is answered in JSON', async () => {
    const r = await t.api.post('/api/dcim/sites/').set(t.auth).set('Accept', BROWSER_ACCEPT).send({ name: 'Rome', slug: 'rom1' });
    expect(r.status).toBe(201);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    await t.api.delete(`/api/dcim/sites/${r.body.id}/`).set(t.auth);
  });

  test('HEAD answers like GET without a body', async () => {
    const r = await t.api.head('/api/dcim/sites/').set(t.auth).set('Accept', BROWSER_ACCEPT);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/html/);
    expect(r.text ?? '').toBe('');
  });
});

describe('pages', () => {
  test('the API root lists the applications as links and shows the root JSON', async () => {
    const r = await t.api.get('/api/').set(HOST).set('Accept', BROWSER_ACCEPT);
    const json = (await t.api.get('/api/').set(HOST)).body as Record<string, string>;
    expect(shownJson(r.text)).toEqual(json);
    expect(r.text).toContain('<h1>API Root</h1>');
    expect(r.text).toContain('<h2 id="links-h">Applications</h2>');
    for (const [app, url] of Object.entries(json)) expect(r.text).toContain(`<li><a href="${url}">${app}</a></li>`);
  });

  test('a list: exactly the JSON text the API sends, every URL a link, methods, pagination and filters', async () => {
    const r = await t.api.get('/api/dcim/sites/?limit=1&offset=1').set(HOST).set(t.auth).set('Accept', BROWSER_ACCEPT);
    expect(r.status).toBe(200);
    const json = await t.api.get('/api/dcim/sites/?limit=1&offset=1').set(HOST).set(t.auth);
    expect(shownText(r.text)).toBe(JSON.stringify(json.body, null, 4));
    expect(r.text).toContain('<title>Sites – Patchbay REST API</title>');
    expect(r.text).toContain('<dd id="allow">GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS</dd>');
    // Every URL in the JSON is a link.
    const urls = JSON.stringify(json.body).match(/https?:\/\/[^"]+/g)!;
    expect(urls.length).toBeGreaterThan(2);
    for (const url of urls) expect(r.text).toContain(`<a href="${url.replace(/&/g, '&amp;')}"`);
    // Pagination links, both ways.
    expect(r.text).toContain(`rel="prev">« Previous</a>`);
    expect(r.text).toContain(`rel="next">Next »</a>`);
    expect(r.text).toContain('Showing 2–2 of 3');
    // Every filter of the endpoint is in the form, and each of its other lookups is named.
    for (const def of filterTable(t.registry.byPath.get('dcim/sites')!).values()) {
      expect(r.text).toContain(`<label for="f-${def.name}">${def.name}</label>`);
      for (const lookup of def.lookups.filter((l) => l !== 'exact')) expect(r.text).toContain(`${def.name}__${lookup}`);
    }
    expect(r.text).toContain('href="/api/docs/#/dcim/dcim_sites_list"');
  });

  test('a detail page names the object and shows its JSON', async () => {
    const r = await t.api.get(`/api/dcim/sites/${siteIds[1]}/`).set(HOST).set(t.auth).set('Accept', BROWSER_ACCEPT);
    expect(r.text).toContain('<h1>Site: Oslo</h1>');
    expect(r.text).toContain('<dd id="allow">GET, PUT, PATCH, DELETE, HEAD, OPTIONS</dd>');
    expect(shownJson(r.text)).toEqual((await t.api.get(`/api/dcim/sites/${siteIds[1]}/`).set(HOST).set(t.auth)).body);
    expect(r.text).not.toContain('id="filter-form"');
  });

  test('data is text, never markup', async () => {
    const list = await t.api.get('/api/dcim/sites/').set(HOST).set(t.auth).set('Accept', BROWSER_ACCEPT);
    const detail = await t.api.get(`/api/dcim/sites/${siteIds[0]}/`).set(HOST).set(t.auth).set('Accept', BROWSER_ACCEPT);
    for (const r of [list, detail]) {
      expect(r.text).not.toContain('<script>alert');
      expect(r.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    }
    expect(detail.text).toContain('<title>Site: &lt;script&gt;alert(1)&lt;/script&gt; – Patchbay REST API</title>');
    const q = await t.api.get('/api/dcim/sites/?q=%22%3E%3Cimg%20src=x%3E').set(HOST).set(t.auth).set('Accept', BROWSER_ACCEPT);
    expect(q.text).not.toContain('"><img src=x>');
    expect(q.text).toContain('value="&quot;&gt;&lt;img src=x&gt;"');
  });

  test('errors render too: a 403 that says how to authenticate, a 404, a 400 naming the filter', async () => {
    const anonymous = await t.api.get('/api/dcim/sites/').set(HOST).set('Accept', BROWSER_ACCEPT);
    expect(anonymous.status).toBe(403);
    expect(anonymous.headers['content-type']).toMatch(/^text\/html/);
    expect(anonymous.text).toContain('HTTP 403 Forbidden');
    expect(anonymous.text).toContain('Authorization: Token &lt;key&gt;');
    expect(shownJson(anonymous.text)).toEqual((await t.api.get('/api/dcim/sites/').set(HOST)).body);
    const missing = await t.api.get('/api/dcim/sites/999999/').set(HOST).set(t.auth).set('Accept', BROWSER_ACCEPT);
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('HTTP 404 Not Found');
    const unknown = await t.api.get('/api/nothing-here/').set(HOST).set('Accept', BROWSER_ACCEPT);
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^text\/html/);
    const bad = await t.api.get('/api/dcim/sites/?id=x').set(HOST).set(t.auth).set('Accept', BROWSER_ACCEPT);
    expect(bad.status).toBe(400);
    expect(shownJson(bad.text)).toEqual((await t.api.get('/api/dcim/sites/?id=x').set(HOST).set(t.auth)).body);
  });

  test('a caller sees on the page exactly what the JSON API gives them, and no more', async () => {
    const reader = await t.makeToken({ superuser: false });
    const auth = { Authorization: `Token ${reader}` };
    for (const p of ['/api/dcim/sites/', `/api/dcim/sites/${siteIds[1]}/`, '/api/users/tokens/']) {
      const json = await t.api.get(p).set(HOST).set(auth);
      const page = await t.api.get(p).set(HOST).set(auth).set('Accept', BROWSER_ACCEPT);
      expect([p, page.status]).toEqual([p, json.status]);
      expect(shownJson(page.text)).toEqual(json.body);
    }
  });

  test('the status page and an application root', async () => {
    const status = await t.api.get('/api/status/').set(HOST).set('Accept', BROWSER_ACCEPT);
    expect(status.text).toContain('<h1>Status</h1>');
    const dcim = await t.api.get('/api/dcim/').set(HOST).set('Accept', BROWSER_ACCEPT);
    expect(dcim.text).toContain('<h1>dcim</h1>');
    expect(dcim.text).toContain('<h2 id="links-h">Object types</h2>');
    expect(dcim.text).toMatch(/<li><a href="http:\/\/patchbay\.test\/api\/dcim\/sites\/">sites<\/a><\/li>/);
  });
});
