import { startTestApp, type TestApp } from '../support/test-app';
import { pruneKeys } from '../../engine/idempotency/key-store';

/**
 * Idempotency-Key on writes (docs/scaling-out/idempotency.md): a retry with the same key and request gets
 * the first answer again and writes nothing; the same key with another request is a 422; a refused write
 * keeps no key; keys are the caller's own and expire with IDEMPOTENCY_KEY_RETENTION.
 */

let t: TestApp;
let seq = 0;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const SITES = '/api/dcim/sites/';
const KEY = 'Idempotency-Key';

async function count(sql: string, values: unknown[] = []): Promise<number> {
  const r = await t.knex.raw(sql, values);
  return (r.rows as Array<{ n: number }>)[0]!.n;
}
const sitesNamed = (name: string) => count(`SELECT count(*)::int AS n FROM "dcim_site" WHERE "name" = ?`, [name]);
const changesOf = (requestIds: string[]) => count(`SELECT count(*)::int AS n FROM "extras_objectchange" WHERE "request_id"::text = ANY(?)`, [requestIds]);
const keysStored = () => count(`SELECT count(*)::int AS n FROM "patchbay_idempotency_key"`);

function newSite(): { name: string; slug: string } {
  seq++;
  return { name: `Idem site ${seq}`, slug: `idem-site-${seq}` };
}
const requestId = (r: { headers: Record<string, string> }) => String(r.headers['x-request-id']);

describe('Idempotency-Key', () => {
  test('a retry with the same key and body gets the first answer again and writes nothing', async () => {
    const site = newSite();
    const first = await t.api.post(SITES).set(t.auth).set(KEY, 'create-1').send(site);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await t.api.post(SITES).set(t.auth).set(KEY, 'create-1').send(site);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(requestId(again)).not.toBe(requestId(first));
    expect(await sitesNamed(site.name)).toBe(1);
    expect(await changesOf([requestId(first)])).toBe(1);
    expect(await changesOf([requestId(again)])).toBe(0);
  });

  test('the change log names the request id the answer carries', async () => {
    const first = await t.api.post(SITES).set(t.auth).set(KEY, 'logged').send(newSite());
    const id = requestId(first);
    const log = await t.api.get(`/api/extras/object-changes/?request_id=${id}`).set(t.auth);
    expect(log.status).toBe(200);
    expect(log.body.count).toBe(1);
    expect(log.body.results[0].request_id).toBe(id);
    expect(log.body.results[0].changed_object_id).toBe(first.body.id);
  });

  test('change and delete replay too: a repeated PATCH logs once, a repeated DELETE answers 204 again', async () => {
    const made = (await t.api.post(SITES).set(t.auth).send(newSite())).body as { id: number };
    const first = await t.api.patch(`${SITES}${made.id}/`).set(t.auth).set(KEY, 'patch-1').send({ description: 'once' });
    const again = await t.api.patch(`${SITES}${made.id}/`).set(t.auth).set(KEY, 'patch-1').send({ description: 'once' });
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.text).toBe(first.text);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await changesOf([requestId(first), requestId(again)])).toBe(1);
    const del = await t.api.delete(`${SITES}${made.id}/`).set(t.auth).set(KEY, 'delete-1');
    const delAgain = await t.api.delete(`${SITES}${made.id}/`).set(t.auth).set(KEY, 'delete-1');
    expect([del.status, delAgain.status]).toEqual([204, 204]);
    expect(delAgain.headers['idempotent-replayed']).toBe('true');
    // Without the key the second delete is a 404: the replay did not run it.
    expect((await t.api.delete(`${SITES}${made.id}/`).set(t.auth)).status).toBe(404);
  });

  test('the same key with another body, path or method is a 422 naming the header, and writes nothing', async () => {
    const site = newSite();
    expect((await t.api.post(SITES).set(t.auth).set(KEY, 'reused').send(site)).status).toBe(201);
    const other = newSite();
    const res = await t.api.post(SITES).set(t.auth).set(KEY, 'reused').send(other);
    expect(res.status).toBe(422);
    expect(res.body[KEY]).toEqual([expect.stringContaining('different request')]);
    expect(await sitesNamed(other.name)).toBe(0);
    expect((await t.api.post('/api/dcim/regions/').set(t.auth).set(KEY, 'reused').send(site)).status).toBe(422);
  });

  test('a key that is empty, too long or not printable ASCII is a 400 naming the header', async () => {
    for (const bad of ['x'.repeat(256), 'tab\there', 'é']) {
      const site = newSite();
      const res = await t.api.post(SITES).set(t.auth).set(KEY, bad).send(site);
      expect(res.status).toBe(400);
      expect(Object.keys(res.body)).toEqual([KEY]);
      expect(await sitesNamed(site.name)).toBe(0);
    }
    const empty = await t.api.post(SITES).set(t.auth).set(KEY, '').send(newSite());
    // An empty header value is no key at all to Node (it keeps the header, with ''): refused the same way.
    expect(empty.status).toBe(400);
    const twice = await t.api.post(SITES).set(t.auth).set(KEY, ['one', 'two'] as unknown as string) /* sent as two header lines */.send(newSite());
    expect(twice.status).toBe(400);
    expect(twice.body[KEY]).toEqual([expect.stringContaining('one Idempotency-Key header')]);
    const longest = await t.api.post(SITES).set(t.auth).set(KEY, 'k'.repeat(255)).send(newSite());
    expect(longest.status).toBe(201);
  });

  test('keys are per user: another user with the same key writes their own object', async () => {
    const other = { Authorization: `Token ${await t.makeToken({ superuser: true })}` };
    const a = newSite();
    const b = newSite();
    const mine = await t.api.post(SITES).set(t.auth).set(KEY, 'shared-key').send(a);
    const theirs = await t.api.post(SITES).set(other).set(KEY, 'shared-key').send(b);
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(await sitesNamed(a.name)).toBe(1);
    expect(await sitesNamed(b.name)).toBe(1);
  });

  test('a refused write keeps no key: the retry runs again', async () => {
    const before = await keysStored();
    const site = newSite();
    const bad = await t.api.post(SITES).set(t.auth).set(KEY, 'fails-first').send({ ...site, status: 'no-such-status' });
    expect(bad.status).toBe(400);
    expect(await keysStored()).toBe(before);
    const good = await t.api.post(SITES).set(t.auth).set(KEY, 'fails-first').send({ ...site, status: 'no-such-status' });
    expect(good.status).toBe(400);
    expect(good.headers['idempotent-replayed']).toBeUndefined();
    // A refusal thrown as a 404 goes the same way.
    expect((await t.api.patch(`${SITES}999999/`).set(t.auth).set(KEY, 'missing').send({})).status).toBe(404);
    expect(await keysStored()).toBe(before);
  });

  test('a bulk create replays whole', async () => {
    const body = [newSite(), newSite(), newSite()];
    const first = await t.api.post(SITES).set(t.auth).set(KEY, 'bulk-1').send(body);
    const again = await t.api.post(SITES).set(t.auth).set(KEY, 'bulk-1').send(body);
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.text).toBe(first.text);
    expect(again.headers['idempotent-replayed']).toBe('true');
    for (const s of body) expect(await sitesNamed(s.name)).toBe(1);
    expect(await changesOf([requestId(first), requestId(again)])).toBe(3);
  });

  test('a bulk change and a bulk delete replay too', async () => {
    const made = (await t.api.post(SITES).set(t.auth).send([newSite(), newSite()])).body as Array<{ id: number }>;
    const patch = made.map((m) => ({ id: m.id, description: 'bulk once' }));
    const first = await t.api.patch(SITES).set(t.auth).set(KEY, 'bulk-patch').send(patch);
    const again = await t.api.patch(SITES).set(t.auth).set(KEY, 'bulk-patch').send(patch);
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.text).toBe(first.text);
    expect(await changesOf([requestId(first), requestId(again)])).toBe(2);
    const ids = made.map((m) => ({ id: m.id }));
    const del = await t.api.delete(SITES).set(t.auth).set(KEY, 'bulk-delete').send(ids);
    const delAgain = await t.api.delete(SITES).set(t.auth).set(KEY, 'bulk-delete').send(ids);
    expect([del.status, delAgain.status]).toEqual([204, 204]);
    expect(delAgain.headers['idempotent-replayed']).toBe('true');
    expect(await changesOf([requestId(del), requestId(delAgain)])).toBe(2);
  });

  test('an allocation action (available-ips POST) replays the address it gave', async () => {
    const prefix = await t.api.post('/api/ipam/prefixes/').set(t.auth).send({ prefix: '10.77.0.0/29' });
    expect(prefix.status).toBe(201);
    const path = `/api/ipam/prefixes/${prefix.body.id}/available-ips/`;
    const first = await t.api.post(path).set(t.auth).set(KEY, 'alloc-1').send({});
    const again = await t.api.post(path).set(t.auth).set(KEY, 'alloc-1').send({});
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers['idempotent-replayed']).toBe('true');
    const n = await count(`SELECT count(*)::int AS n FROM "ipam_ipaddress" WHERE host("address") LIKE '10.77.0.%'`);
    expect(n).toBe(1);
    const other = await t.api.post(path).set(t.auth).set(KEY, 'alloc-2').send({});
    expect(other.status).toBe(201);
    expect(other.body.address).not.toBe(first.body.address);
  });

  test('without the header nothing changes: no statement touches the key table', async () => {
    t.queries.reset();
    expect((await t.api.post(SITES).set(t.auth).send(newSite())).status).toBe(201);
    expect(t.queries.log.length).toBeGreaterThan(0);
    expect(t.queries.log.filter((q) => q.includes('patchbay_idempotency_key'))).toEqual([]);
    t.queries.reset();
    expect((await t.api.post(SITES).set(t.auth).set(KEY, 'counted').send(newSite())).status).toBe(201);
    expect(t.queries.log.filter((q) => q.includes('patchbay_idempotency_key')).length).toBe(2);
  });

  test('keys older than IDEMPOTENCY_KEY_RETENTION are pruned; the same key then writes again', async () => {
    const site = newSite();
    expect((await t.api.post(SITES).set(t.auth).set(KEY, 'expiring').send(site)).status).toBe(201);
    const fresh = await t.api.post(SITES).set(t.auth).set(KEY, 'kept').send(newSite());
    expect(fresh.status).toBe(201);
    await t.knex.raw(`UPDATE "patchbay_idempotency_key" SET "created" = now() - interval '25 hours' WHERE "key" = 'expiring'`);
    expect(t.config.idempotencyKeyRetentionHours).toBe(24);
    expect(await pruneKeys(t.knex, t.config.idempotencyKeyRetentionHours)).toBe(1);
    expect(await count(`SELECT count(*)::int AS n FROM "patchbay_idempotency_key" WHERE "key" = 'kept'`)).toBe(1);
    const later = await t.api.post(SITES).set(t.auth).set(KEY, 'expiring').send({ ...site, name: `${site.name} b`, slug: `${site.slug}-b` });
    expect(later.status).toBe(201);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
  });

  test('a key past its retention but not yet pruned is not replayed either: the write runs as new', async () => {
    const site = newSite();
    expect((await t.api.post(SITES).set(t.auth).set(KEY, 'stale').send(site)).status).toBe(201);
    await t.knex.raw(`UPDATE "patchbay_idempotency_key" SET "created" = now() - interval '25 hours' WHERE "key" = 'stale'`);
    const other = newSite();
    const again = await t.api.post(SITES).set(t.auth).set(KEY, 'stale').send(other);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(await sitesNamed(other.name)).toBe(1);
    // The key now holds the new answer, and replays it.
    const replayed = await t.api.post(SITES).set(t.auth).set(KEY, 'stale').send(other);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.text).toBe(again.text);
  });

  test('the OpenAPI document offers the header on writes', async () => {
    const doc = await t.api.get('/api/schema/?format=json').set(t.auth);
    expect(doc.status).toBe(200);
    const op = doc.body.paths['/api/dcim/sites/'].post as { parameters?: Array<{ name: string; in: string; required?: boolean }> };
    expect(op.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: KEY, in: 'header', required: false })]));
    const read = doc.body.paths['/api/dcim/sites/'].get as { parameters?: Array<{ name: string }> };
    expect((read.parameters ?? []).some((p) => p.name === KEY)).toBe(false);
  });
});
