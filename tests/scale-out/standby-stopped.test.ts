import { api, cluster, describeScaleOut, ownDatabase, migrate, sleep, superuser, startInstance, standbyStatus, untilStandbyState, type Instance } from './scale-out-support';

/**
 * The standby stops in the middle of a read load through two instances: no client sees an error (every
 * answer is a 200 with the right content), reads move to the primary, and /api/status/ says the standby is
 * down. Started again, it answers reads again.
 */
describeScaleOut('standby stopped mid-load', () => {
  let db: Awaited<ReturnType<typeof ownDatabase>>;
  let a: Instance;
  let b: Instance;
  let admin: string;
  let reader: string;
  const sites: Array<{ id: number; name: string }> = [];

  beforeAll(async () => {
    db = await ownDatabase('pb_stop');
    await migrate(db.primary);
    admin = await superuser(db.primary, 'admin');
    reader = await superuser(db.primary, 'reader');
    [a, b] = await Promise.all([startInstance(db), startInstance(db)]);
    for (let i = 0; i < 20; i++) {
      const created = await api(a.base, admin, 'POST', '/api/dcim/sites/', { name: `stop-${i}`, slug: `stop-${i}` });
      expect(created.status).toBe(201);
      sites.push({ id: created.body.id, name: created.body.name });
    }
    await Promise.all([untilStandbyState(a.base, reader, 'up'), untilStandbyState(b.base, reader, 'up')]);
  }, 600_000);

  afterAll(async () => {
    // Later files need the standby.
    cluster('standby-start');
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.drop();
  }, 120_000);

  test('0 errors while the standby stops; reads continue on the primary; status shows it down; it is used again once started', async () => {
    const failures: string[] = [];
    let answered = 0;
    let running = true;
    const client = async (base: string, n: number) => {
      for (let i = n; running; i++) {
        const site = sites[i % sites.length]!;
        const [detail, list] = await Promise.all([
          api(base, reader, 'GET', `/api/dcim/sites/${site.id}/`).catch((e: Error) => ({ status: 0, body: e.message })),
          api(base, reader, 'GET', '/api/dcim/sites/?limit=100').catch((e: Error) => ({ status: 0, body: e.message })),
        ]);
        if (detail.status !== 200 || detail.body.name !== site.name) failures.push(`${base} detail: ${detail.status} ${JSON.stringify(detail.body)}`);
        if (list.status !== 200 || list.body.count !== sites.length) failures.push(`${base} list: ${list.status} ${JSON.stringify(list.body).slice(0, 200)}`);
        answered += 2;
      }
    };
    const clients = [client(a.base, 0), client(a.base, 7), client(b.base, 3), client(b.base, 11)];
    await sleep(3000);
    const servedBefore = (await standbyStatus(b.base, admin)).reads_served;
    expect(servedBefore).toBeGreaterThan(0);
    cluster('standby-stop');
    await Promise.all([untilStandbyState(a.base, admin, 'down'), untilStandbyState(b.base, admin, 'down')]);
    const answeredWhileDown = answered;
    await sleep(3000);
    expect(answered).toBeGreaterThan(answeredWhileDown);
    running = false;
    await Promise.all(clients);
    expect(failures).toEqual([]);
    const status = (await api(b.base, admin, 'GET', '/api/status/')).body;
    expect(status['database-status']).toBe('ok');
    expect(status.patchbay.replicas.standbys[0].state).toBe('down');
    expect(a.log() + b.log()).toMatch(/standby .*: up -> down/);

    cluster('standby-start');
    await Promise.all([untilStandbyState(a.base, admin, 'up'), untilStandbyState(b.base, admin, 'up')]);
    const servedAfterRestart = (await standbyStatus(b.base, admin)).reads_served;
    const again = await api(b.base, reader, 'GET', `/api/dcim/sites/${sites[0]!.id}/`);
    expect(again.status).toBe(200);
    expect((await standbyStatus(b.base, admin)).reads_served).toBeGreaterThan(servedAfterRestart);
  }, 600_000);
});
