import { startTestApp, type TestApp } from '../support/test-app';

/**
 * A database with no user at all: the anonymous 403 says how to make the first one (createsuperuser),
 * as NetBox's bare "credentials were not provided" leads nowhere there. Once a user exists, the answer is
 * NetBox's own again.
 */

let t: TestApp;

const PLAIN = 'Authentication credentials were not provided.';
const HINTED = `${PLAIN} No user exists yet: create one with \`npx patchbay createsuperuser --username <name> --password <password>\`.`;

beforeAll(async () => {
  t = await startTestApp();
  // startTestApp makes an admin; this file is about the database before anyone has made one.
  await t.knex.raw(`DELETE FROM "users_token"`);
  await t.knex.raw(`DELETE FROM "users_user"`);
});
afterAll(async () => {
  await t.close();
});

describe('on a database with no user', () => {
  test('an anonymous list request is told to run createsuperuser', async () => {
    const res = await t.api.get('/api/dcim/sites/');
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: HINTED });
  });

  test('an anonymous write and an object request get the same hint', async () => {
    const write = await t.api.post('/api/ipam/prefixes/').send({ prefix: '10.0.0.0/8' });
    expect({ status: write.status, body: write.body }).toEqual({ status: 403, body: { detail: HINTED } });
    const detail = await t.api.get('/api/dcim/devices/1/');
    expect({ status: detail.status, body: detail.body }).toEqual({ status: 403, body: { detail: HINTED } });
  });

  test('an unknown token is refused as before: it is not the newcomer case', async () => {
    const res = await t.api.get('/api/dcim/sites/').set({ Authorization: `Token ${'0'.repeat(40)}` });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'Invalid token' });
  });

  test('the browsable page shows the hint too', async () => {
    const res = await t.api.get('/api/dcim/sites/').set('Accept', 'text/html');
    expect(res.status).toBe(403);
    expect(res.text).toContain('npx patchbay createsuperuser --username &lt;name&gt; --password &lt;password&gt;');
  });
});

describe('once a user exists', () => {
  test('the anonymous 403 is NetBox\'s plain one', async () => {
    await t.makeToken({ superuser: true, username: 'first' });
    const res = await t.api.get('/api/dcim/sites/');
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: PLAIN });
  });
});
