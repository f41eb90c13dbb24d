import crypto from 'node:crypto';
import { startTestApp, type TestApp } from '../support/test-app';
import { apiWith, listen } from '../support/listen';

/**
 * Tokens (spec section 5, issue 4): their representation, the key rules, every reason a token is
 * refused, allowed_ips over IPv4 and IPv6 (with and without trusted proxies), read-only tokens, and
 * last-use tracking against the app's movable clock (no sleeps).
 */

let t: TestApp;
let adminId: number;

const TOKENS = '/api/users/tokens/';
const HEX40 = /^[0-9a-f]{40}$/;
/** An ISO 8601 timestamp with a zone (Z or an offset). */
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;
const hex40 = () => crypto.randomBytes(20).toString('hex');
const as = (key: string) => ({ Authorization: `Token ${key}` });

beforeAll(async () => {
  t = await startTestApp();
  adminId = await userIdOf(t.token);
});
afterAll(async () => {
  await t.close();
});

async function userIdOf(key: string): Promise<number> {
  const r = await t.knex.raw(`SELECT "user_id" FROM "users_token" WHERE "key" = ?`, [key]);
  return (r.rows as Array<{ user_id: number }>)[0]!.user_id;
}

async function tokenRow(key: string): Promise<{ id: number; last_used: Date | null; last_updated: Date | null } | undefined> {
  const r = await t.knex.raw(`SELECT "id", "last_used", "last_updated" FROM "users_token" WHERE "key" = ?`, [key]);
  return (r.rows as Array<{ id: number; last_used: Date | null; last_updated: Date | null }>)[0];
}

async function tokenCount(): Promise<number> {
  const r = await t.knex.raw(`SELECT count(*)::int AS n FROM "users_token"`);
  return (r.rows as Array<{ n: number }>)[0]!.n;
}

/** A token created through the API by the superuser (for adminId unless told). */
async function createToken(body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await t.api.post(TOKENS).set(t.auth).send({ user: adminId, ...body });
  expect([res.status, res.body]).toEqual([201, expect.any(Object)]);
  return res.body;
}

/** A representation with every absolute URL's origin removed. */
function withoutOrigin(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value).replace(/http:\/\/[^/"]+\//g, '/'));
}

/** Moves the app's clock so that it reads `target` (give or take the milliseconds a request takes). */
function clockTo(target: Date): void {
  t.clock.advance(target.getTime() - t.clock.now().getTime());
}

describe('representation', () => {
  test('a token has exactly NetBox\'s fields, with the user nested and ISO timestamps', async () => {
    const body = await createToken({ description: 'ci runner', expires: '2099-01-02T03:04:05Z', write_enabled: false, allowed_ips: ['10.0.0.0/8', '2001:db8::/32'] });
    expect(Object.keys(body).sort()).toEqual(
      ['allowed_ips', 'created', 'description', 'display', 'expires', 'id', 'key', 'last_updated', 'last_used', 'url', 'user', 'write_enabled'].sort(),
    );
    expect(body.id).toEqual(expect.any(Number));
    expect(body.url).toMatch(new RegExp(`^http://[^/]+/api/users/tokens/${body.id}/$`));
    expect(body.user).toEqual({ id: adminId, url: expect.stringMatching(new RegExp(`/api/users/users/${adminId}/$`)), display: 'admin', username: 'admin' });
    expect(body.created).toMatch(ISO);
    expect(Math.abs(Date.parse(body.created) - Date.now())).toBeLessThan(5 * 60_000);
    expect(body.last_updated).toMatch(ISO);
    expect(Date.parse(body.expires)).toBe(Date.parse('2099-01-02T03:04:05Z'));
    expect(body.expires).toMatch(ISO);
    expect(body.last_used).toBeNull();
    expect(body.key).toMatch(HEX40);
    expect(body.write_enabled).toBe(false);
    expect(body.description).toBe('ci runner');
    expect(body.allowed_ips).toEqual(['10.0.0.0/8', '2001:db8::/32']);
    // display names the token without giving its key away.
    expect(typeof body.display).toBe('string');
    expect(body.display.endsWith(body.key.slice(-4))).toBe(true);
    expect(body.display).not.toContain(body.key.slice(0, 20));

    const detail = await t.api.get(`${TOKENS}${body.id}/`).set(t.auth);
    expect(detail.status).toBe(200);
    // supertest serves each request on a new port: compare with the origin taken out.
    expect(withoutOrigin(detail.body)).toEqual(withoutOrigin(body));
  });

  test('defaults: write enabled, no expiry, no description, no address restriction', async () => {
    const body = await createToken({});
    expect(body).toMatchObject({ write_enabled: true, expires: null, last_used: null, description: '', allowed_ips: [] });
  });
});

describe('keys', () => {
  test.each([
    ['omitted', {}],
    ['blank', { key: '' }],
  ])('a key %s is generated: 40 hex characters, different each time, and it authenticates', async (_name, extra) => {
    const a = await createToken(extra);
    const b = await createToken(extra);
    expect(a.key).toMatch(HEX40);
    expect(b.key).toMatch(HEX40);
    expect(a.key).not.toBe(b.key);
    expect((await t.api.get('/api/dcim/sites/').set(as(a.key))).status).toBe(200);
  });

  test('an explicit 40-hex key is kept (restoring a deleted token) and authenticates', async () => {
    const key = hex40();
    const body = await createToken({ key });
    expect(body.key).toBe(key);
    expect((await t.api.get('/api/dcim/sites/').set(as(key))).status).toBe(200);
    expect((await t.api.delete(`${TOKENS}${body.id}/`).set(t.auth)).status).toBe(204);
    expect((await t.api.get('/api/dcim/sites/').set(as(key))).body).toEqual({ detail: 'Invalid token' });
    const restored = await createToken({ key });
    expect(restored.key).toBe(key);
    expect((await t.api.get('/api/dcim/sites/').set(as(key))).status).toBe(200);
  });

  test.each([
    ['39 characters', hex40().slice(1)],
    ['41 characters', `${hex40()}a`],
    ['non-hex characters', 'g'.repeat(40)],
    ['spaces inside', `${hex40().slice(0, 20)} ${hex40().slice(0, 19)}`],
    ['a number', 12345],
  ])('a key of %s is a 400 naming key, and nothing is created', async (_name, key) => {
    const before = await tokenCount();
    const res = await t.api.post(TOKENS).set(t.auth).send({ user: adminId, key });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body)).toEqual(['key']);
    expect(res.body.key).toEqual([expect.any(String)]);
    expect(await tokenCount()).toBe(before);
  });

  test('a duplicate key is a 400 naming key', async () => {
    const key = hex40();
    await createToken({ key });
    const before = await tokenCount();
    const res = await t.api.post(TOKENS).set(t.auth).send({ user: adminId, key });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body)).toEqual(['key']);
    expect(await tokenCount()).toBe(before);
    // Changing another token's key to the same value is refused the same way.
    const other = await createToken({});
    const patch = await t.api.patch(`${TOKENS}${other.id}/`).set(t.auth).send({ key });
    expect(patch.status).toBe(400);
    expect(Object.keys(patch.body)).toEqual(['key']);
  });
});

describe('ALLOW_TOKEN_RETRIEVAL=false', () => {
  test('the key is in the create response only: absent from detail, list, brief and update responses', async () => {
    const hidden = apiWith(t, { ALLOW_TOKEN_RETRIEVAL: 'false' });
    const created = await hidden.post(TOKENS).set(t.auth).send({ user: adminId, description: 'hidden' });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(HEX40);
    const key = created.body.key as string;
    // The key works, though it is never shown again.
    expect((await hidden.get('/api/dcim/sites/').set(as(key))).status).toBe(200);

    const detail = await hidden.get(`${TOKENS}${created.body.id}/`).set(t.auth);
    expect(detail.status).toBe(200);
    expect(detail.body).not.toHaveProperty('key');
    expect(JSON.stringify(detail.body)).not.toContain(key);
    expect(detail.body.display).not.toContain(key);

    const list = await hidden.get(`${TOKENS}?limit=0`).set(t.auth);
    expect(list.status).toBe(200);
    expect(list.body.results.length).toBeGreaterThan(1);
    for (const row of list.body.results) expect(row).not.toHaveProperty('key');
    expect(JSON.stringify(list.body)).not.toContain(key);

    const brief = await hidden.get(`${TOKENS}?brief=1&limit=0`).set(t.auth);
    expect(JSON.stringify(brief.body)).not.toContain(key);

    const patched = await hidden.patch(`${TOKENS}${created.body.id}/`).set(t.auth).send({ description: 'still hidden' });
    expect(patched.status).toBe(200);
    expect(patched.body).not.toHaveProperty('key');

    // With retrieval allowed (the default) the same token shows its key.
    const shown = await t.api.get(`${TOKENS}${created.body.id}/`).set(t.auth);
    expect(shown.body.key).toBe(key);
  });
});

describe('why a token is refused', () => {
  test('an unknown key: "Invalid token"', async () => {
    const res = await t.api.get('/api/dcim/sites/').set(as(hex40()));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'Invalid token' });
  });

  test('expiry boundary on the app clock: valid one second before, "Token expired" at and after', async () => {
    const expires = new Date(t.clock.now().getTime() + 3600_000);
    const { key } = await createToken({ expires: expires.toISOString() });
    try {
      clockTo(new Date(expires.getTime() - 1000));
      const before = await t.api.get('/api/dcim/sites/').set(as(key));
      expect(before.status).toBe(200);
      clockTo(expires);
      for (const res of [await t.api.get('/api/dcim/sites/').set(as(key)), await t.api.post('/api/dcim/sites/').set(as(key)).send({ name: 'Late', slug: 'late' })]) {
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ detail: 'Token expired' });
      }
      t.clock.advance(86400_000);
      const after = await t.api.get('/api/dcim/sites/').set(as(key));
      expect(after.body).toEqual({ detail: 'Token expired' });
      expect((await t.api.get('/api/dcim/sites/?slug=late').set(t.auth)).body.count).toBe(0);
    } finally {
      // Leave the clock near real time for the tests that follow.
      clockTo(new Date());
    }
  });

  test('an inactive user: 403, though the token itself is fine', async () => {
    const key = await t.makeToken({ superuser: true });
    expect((await t.api.get('/api/dcim/sites/').set(as(key))).status).toBe(200);
    const uid = await userIdOf(key);
    expect((await t.api.patch(`/api/users/users/${uid}/`).set(t.auth).send({ is_active: false })).status).toBe(200);
    const res = await t.api.get('/api/dcim/sites/').set(as(key));
    expect(res.status).toBe(403);
    expect(res.body.detail).toMatch(/inactive/i);
    expect((await t.api.patch(`/api/users/users/${uid}/`).set(t.auth).send({ is_active: true })).status).toBe(200);
    expect((await t.api.get('/api/dcim/sites/').set(as(key))).status).toBe(200);
  });

  test('a client outside allowed_ips: "Source IP <address> is not permitted to authenticate using this token."', async () => {
    const { key } = await createToken({ allowed_ips: ['10.0.0.0/8', '2001:db8::/32'] });
    const res = await t.api.get('/api/dcim/sites/').set(as(key));
    expect(res.status).toBe(403);
    // supertest connects over loopback (an IPv4-mapped ::ffff:127.0.0.1 on a dual-stack socket): reported as IPv4.
    expect(res.body).toEqual({ detail: 'Source IP 127.0.0.1 is not permitted to authenticate using this token.' });
    const write = await t.api.post('/api/dcim/sites/').set(as(key)).send({ name: 'Outside', slug: 'outside' });
    expect(write.status).toBe(403);
    expect(write.body.detail).toMatch(/^Source IP .* is not permitted to authenticate using this token\.$/);
  });
});

describe('allowed_ips', () => {
  test.each([
    [['127.0.0.0/8'], 200],
    [['127.0.0.1/32'], 200],
    [['192.0.2.0/24', '127.0.0.0/30'], 200],
    [['::ffff:127.0.0.0/104'], 200],
    [['0.0.0.0/0'], 200],
    [[], 200],
    [['10.0.0.0/8'], 403],
    [['127.0.0.2/32'], 403],
    [['::1/128'], 403],
    [['::/0'], 403],
  ])('IPv4 client 127.0.0.1 with allowed_ips %j: %i', async (allowed, status) => {
    const { key } = await createToken({ allowed_ips: allowed });
    const res = await t.api.get('/api/dcim/sites/').set(as(key));
    expect(res.status).toBe(status);
  });

  test.each([
    [['2001:db8::/32'], 200],
    [['2001:db8::5/128'], 200],
    [['10.0.0.0/8', '2001:db8::/64'], 200],
    [['2001:db9::/32'], 403],
    [['2001:db8::6/127'], 403],
    [['127.0.0.0/8'], 403],
  ])('IPv6 client 2001:db8::5 behind a trusted proxy, allowed_ips %j: %i', async (allowed, status) => {
    const behindProxy = apiWith(t, { TRUSTED_PROXIES: '127.0.0.1,::1' });
    const { key } = await createToken({ allowed_ips: allowed });
    const res = await behindProxy.get('/api/dcim/sites/').set(as(key)).set('X-Forwarded-For', '2001:db8::5');
    expect(res.status).toBe(status);
    if (status === 403) expect(res.body).toEqual({ detail: 'Source IP 2001:db8::5 is not permitted to authenticate using this token.' });
  });

  test('X-Forwarded-For is ignored when the peer is not a trusted proxy', async () => {
    const { key } = await createToken({ allowed_ips: ['10.0.0.0/8', '2001:db8::/32'] });
    for (const spoof of ['10.1.2.3', '2001:db8::5', '10.1.2.3, 10.9.9.9']) {
      const res = await t.api.get('/api/dcim/sites/').set(as(key)).set('X-Forwarded-For', spoof);
      expect([spoof, res.status, res.body]).toEqual([spoof, 403, { detail: 'Source IP 127.0.0.1 is not permitted to authenticate using this token.' }]);
    }
    // Trusting some other proxy does not make the loopback peer one.
    const otherProxy = apiWith(t, { TRUSTED_PROXIES: '192.0.2.10' });
    expect((await otherProxy.get('/api/dcim/sites/').set(as(key)).set('X-Forwarded-For', '10.1.2.3')).status).toBe(403);
  });

  test('behind a trusted proxy, a client cannot prepend an address: the nearest untrusted hop counts', async () => {
    const behindProxy = apiWith(t, { TRUSTED_PROXIES: '127.0.0.1,::1' });
    const { key } = await createToken({ allowed_ips: ['10.0.0.0/8'] });
    expect((await behindProxy.get('/api/dcim/sites/').set(as(key)).set('X-Forwarded-For', '10.1.2.3')).status).toBe(200);
    const res = await behindProxy.get('/api/dcim/sites/').set(as(key)).set('X-Forwarded-For', '10.1.2.3, 198.51.100.7');
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'Source IP 198.51.100.7 is not permitted to authenticate using this token.' });
  });

  test.each([
    ['host bits set (IPv4)', ['10.0.0.1/24']],
    ['host bits set (IPv6)', ['2001:db8::1/32']],
    ['not an address', ['banana']],
    ['a string instead of a list', '10.0.0.0/8'],
  ])('%s is a 400 naming allowed_ips, on create and on update', async (_name, allowed) => {
    const before = await tokenCount();
    const res = await t.api.post(TOKENS).set(t.auth).send({ user: adminId, allowed_ips: allowed });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body)).toEqual(['allowed_ips']);
    expect(await tokenCount()).toBe(before);
    const token = await createToken({ allowed_ips: ['10.0.0.0/8'] });
    const patch = await t.api.patch(`${TOKENS}${token.id}/`).set(t.auth).send({ allowed_ips: allowed });
    expect(patch.status).toBe(400);
    expect(Object.keys(patch.body)).toEqual(['allowed_ips']);
    expect((await t.api.get(`${TOKENS}${token.id}/`).set(t.auth)).body.allowed_ips).toEqual(['10.0.0.0/8']);
  });
});

describe('a read-only token', () => {
  test('reads and inspects (GET, HEAD, OPTIONS) but every unsafe method is 403, and nothing is written', async () => {
    const { key, id } = await createToken({ write_enabled: false, description: 'read only' });
    const h = as(key);
    expect((await t.api.get(TOKENS).set(h)).status).toBe(200);
    expect((await t.api.get(`${TOKENS}${id}/`).set(h)).status).toBe(200);
    expect((await t.api.head(`${TOKENS}${id}/`).set(h)).status).toBe(200);
    const options = await t.api.options(TOKENS).set(h);
    expect(options.status).toBe(200);
    // It may not POST, so no POST form is offered.
    expect(options.body.actions?.POST).toBeUndefined();
    const before = await tokenCount();
    const attempts = [
      await t.api.post(TOKENS).set(h).send({ user: adminId }),
      await t.api.patch(`${TOKENS}${id}/`).set(h).send({ write_enabled: true }),
      await t.api.put(`${TOKENS}${id}/`).set(h).send({ user: adminId, write_enabled: true }),
      await t.api.patch(TOKENS).set(h).send([{ id, write_enabled: true }]),
      await t.api.delete(`${TOKENS}${id}/`).set(h),
      await t.api.delete(TOKENS).set(h).send([{ id }]),
      await t.api.post('/api/ipam/prefixes/').set(h).send({ prefix: '10.0.0.0/8' }),
    ];
    for (const res of attempts) {
      expect(res.status).toBe(403);
      expect(typeof res.body.detail).toBe('string');
    }
    expect(await tokenCount()).toBe(before);
    const after = await t.api.get(`${TOKENS}${id}/`).set(t.auth);
    expect(after.body.write_enabled).toBe(false);
    expect((await t.api.get('/api/ipam/prefixes/').set(t.auth)).body.count).toBe(0);
  });
});

describe('last use', () => {
  test('recorded on first use, not rewritten within 60 s, rewritten after', async () => {
    const { key } = await createToken({ description: 'last use' });
    expect((await tokenRow(key))!.last_used).toBeNull();

    const first = t.clock.now();
    expect((await t.api.get('/api/dcim/sites/').set(as(key))).status).toBe(200);
    const recorded = (await tokenRow(key))!;
    expect(recorded.last_used).not.toBeNull();
    expect(Math.abs(recorded.last_used!.getTime() - first.getTime())).toBeLessThan(2000);
    // The spec's name for it moves with it.
    expect(recorded.last_updated!.getTime()).toBe(recorded.last_used!.getTime());

    t.clock.advance(30_000);
    expect((await t.api.get('/api/dcim/sites/').set(as(key))).status).toBe(200);
    expect((await tokenRow(key))!.last_used!.getTime()).toBe(recorded.last_used!.getTime());

    t.clock.advance(31_000);
    const later = t.clock.now();
    expect((await t.api.get('/api/dcim/sites/').set(as(key))).status).toBe(200);
    const rewritten = (await tokenRow(key))!;
    expect(rewritten.last_used!.getTime()).toBeGreaterThanOrEqual(recorded.last_used!.getTime() + 60_000);
    expect(Math.abs(rewritten.last_used!.getTime() - later.getTime())).toBeLessThan(2000);

    // The API shows it.
    const shown = await t.api.get(`${TOKENS}?key=${key}`).set(t.auth);
    expect(Date.parse(shown.body.results[0].last_used)).toBe(rewritten.last_used!.getTime());
  });

  test('a refused request (expired token) records no use', async () => {
    const { key } = await createToken({ expires: new Date(t.clock.now().getTime() - 1000).toISOString() });
    expect((await t.api.get('/api/dcim/sites/').set(as(key))).status).toBe(403);
    expect((await tokenRow(key))!.last_used).toBeNull();
  });

  test('never recorded while MAINTENANCE_MODE is on', async () => {
    const maintenance = apiWith(t, { MAINTENANCE_MODE: 'true' });
    const { key } = await createToken({ description: 'maintenance' });
    expect((await maintenance.get('/api/dcim/sites/').set(as(key))).status).toBe(200);
    expect((await tokenRow(key))!.last_used).toBeNull();
    t.clock.advance(120_000);
    expect((await maintenance.get('/api/dcim/sites/').set(as(key))).status).toBe(200);
    expect((await tokenRow(key))!.last_used).toBeNull();
    // Out of maintenance the next use is recorded.
    expect((await t.api.get('/api/dcim/sites/').set(as(key))).status).toBe(200);
    expect((await tokenRow(key))!.last_used).not.toBeNull();
  });

  test('a burst of 20 concurrent requests with a stale token issues exactly one UPDATE of the token table', async () => {
    const { key } = await createToken({ description: 'burst' });
    // Used once, then left alone for over a minute: stale.
    expect((await t.api.get('/api/dcim/sites/').set(as(key))).status).toBe(200);
    t.clock.advance(90_000);
    t.queries.reset();
    // One server on a real port, and all 20 requests in flight before any is answered.
    const server = await listen(t);
    let statuses: number[];
    try {
      statuses = await Promise.all(Array.from({ length: 20 }, () => fetch(`${server.base}/api/dcim/sites/`, { headers: as(key) }).then((r) => r.status)));
    } finally {
      await server.close();
    }
    expect(statuses).toEqual(Array(20).fill(200));
    const updates = t.queries.log.filter((sql) => /^\s*update\s+"?users_token"?/i.test(sql) || /^\s*update\s+\S*"users_token"/i.test(sql));
    expect(updates).toHaveLength(1);
    const used = (await tokenRow(key))!.last_used!.getTime();
    expect(Math.abs(used - t.clock.now().getTime())).toBeLessThan(5000);
  });
});
