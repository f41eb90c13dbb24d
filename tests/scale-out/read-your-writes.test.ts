import { api, cluster, describeScaleOut, ownDatabase, migrate, superuser, startInstance, standbyStatus, untilStandbyState, type Instance } from './scale-out-support';

/**
 * Two instances on one primary and one standby that applies every commit a second late: a client writing
 * through A and reading through B at once always sees its write (the write lease sends its reads to the
 * primary), while another user's reads through B are really served by the standby (and so see the delay).
 */
describeScaleOut('read-your-writes across instances, standby delayed 1 s', () => {
  let db: Awaited<ReturnType<typeof ownDatabase>>;
  let a: Instance;
  let b: Instance;
  let writer: string;
  let reader: string;

  beforeAll(async () => {
    db = await ownDatabase('pb_ryw');
    await migrate(db.primary);
    writer = await superuser(db.primary, 'writer');
    reader = await superuser(db.primary, 'reader');
    [a, b] = await Promise.all([startInstance(db), startInstance(db)]);
    await Promise.all([untilStandbyState(a.base, writer, 'up'), untilStandbyState(b.base, writer, 'up')]);
    cluster('delay', '1000');
  }, 600_000);

  afterAll(async () => {
    cluster('delay', '0');
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.drop();
  }, 120_000);

  test('1,000 rounds of write on A, then detail and filtered list on B: no stale read', async () => {
    let stale = 0;
    let id = 0;
    let slug = '';
    const started = Date.now();
    for (let round = 0; round < 1000; round++) {
      let description: string;
      if (round % 2 === 0) {
        slug = `ryw-${round}`;
        description = `created ${round}`;
        const created = await api(a.base, writer, 'POST', '/api/dcim/sites/', { name: slug, slug, description });
        expect(created.status).toBe(201);
        id = created.body.id;
      } else {
        description = `changed ${round}`;
        const changed = await api(a.base, writer, 'PATCH', `/api/dcim/sites/${id}/`, { description });
        expect(changed.status).toBe(200);
      }
      const detail = await api(b.base, writer, 'GET', `/api/dcim/sites/${id}/`);
      const list = await api(b.base, writer, 'GET', `/api/dcim/sites/?slug=${slug}`);
      if (detail.status !== 200 || detail.body.description !== description) stale++;
      if (list.status !== 200 || list.body.count !== 1 || list.body.results[0].description !== description) stale++;
    }
    const served = await standbyStatus(b.base, writer);
    console.log(`1,000 rounds in ${Date.now() - started} ms; B's standby: ${JSON.stringify(served)}`);
    expect(stale).toBe(0);
  }, 1_800_000);

  test('a browser session writing on A reads its writes on B', async () => {
    const csrf = 'a'.repeat(64);
    const login = await fetch(`${a.base}/login/`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: `csrftoken=${csrf}` },
      body: new URLSearchParams({ csrfmiddlewaretoken: csrf, username: 'writer', password: 'pw-scale-out-1', next: '/api/' }).toString(),
    });
    expect(login.status).toBe(302);
    const cookies = login.headers.getSetCookie().map((c) => c.split(';')[0]!);
    const session = cookies.find((c) => c.startsWith('sessionid='))!;
    const sessionCsrf = cookies.find((c) => c.startsWith('csrftoken='))!.slice('csrftoken='.length);
    const headers = { Cookie: `${session}; csrftoken=${sessionCsrf}`, Accept: 'application/json' };
    let stale = 0;
    for (let round = 0; round < 20; round++) {
      const slug = `session-${round}`;
      const created = await fetch(`${a.base}/api/dcim/sites/`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json', 'X-CSRFToken': sessionCsrf, Origin: a.base, Referer: `${a.base}/api/` },
        body: JSON.stringify({ name: slug, slug }),
      });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: number };
      const detail = await fetch(`${b.base}/api/dcim/sites/${id}/`, { headers });
      const list = (await (await fetch(`${b.base}/api/dcim/sites/?slug=${slug}`, { headers })).json()) as { count: number };
      if (detail.status !== 200 || list.count !== 1) stale++;
    }
    expect(stale).toBe(0);
  }, 600_000);

  test('the standby really answers: a user who does not write reads through B, sees the delay, and B counts standby reads', async () => {
    const before = await standbyStatus(b.base, reader);
    let staleSeen = 0;
    for (let round = 0; round < 20 && staleSeen === 0; round++) {
      const slug = `other-${round}`;
      const created = await api(a.base, writer, 'POST', '/api/dcim/sites/', { name: slug, slug });
      expect(created.status).toBe(201);
      const seen = await api(b.base, reader, 'GET', `/api/dcim/sites/${created.body.id}/`);
      if (seen.status === 404) staleSeen++;
      else expect(seen.status).toBe(200);
    }
    expect(staleSeen).toBeGreaterThan(0);
    const after = await standbyStatus(b.base, reader);
    expect(after.reads_served).toBeGreaterThan(before.reads_served);
  }, 600_000);

  test('actions read on a standby too, checked first: the writer sees its allocation at once, the reader is served by the standby', async () => {
    let stale = 0;
    for (let round = 0; round < 20; round++) {
      const prefix = await api(a.base, writer, 'POST', '/api/ipam/prefixes/', { prefix: `10.${round}.0.0/29` });
      expect(prefix.status).toBe(201);
      const taken = await api(a.base, writer, 'POST', `/api/ipam/prefixes/${prefix.body.id}/available-ips/`, {});
      expect(taken.status).toBe(201);
      // The writer's next read of the free addresses, through B, must not offer the one just taken.
      const free = await api(b.base, writer, 'GET', `/api/ipam/prefixes/${prefix.body.id}/available-ips/`);
      if (free.status !== 200 || free.body.some((ip: { address: string }) => ip.address === taken.body.address)) stale++;
    }
    expect(stale).toBe(0);
    // A user who has not written: B's standby answers the action (a 404 for the prefix the standby has not
    // applied yet is its answer too), and B counts it.
    const before = await standbyStatus(b.base, reader);
    const fresh = await api(a.base, writer, 'POST', '/api/ipam/prefixes/', { prefix: '10.200.0.0/29' });
    expect(fresh.status).toBe(201);
    const early = await api(b.base, reader, 'GET', `/api/ipam/prefixes/${fresh.body.id}/available-ips/`);
    expect(early.status).toBe(404);
    const after = await standbyStatus(b.base, reader);
    expect(after.reads_served).toBeGreaterThan(before.reads_served);
  }, 600_000);
});
