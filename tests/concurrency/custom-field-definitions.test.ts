import { TEST_DATABASE_URL } from '../support/test-app';
import { report, startCluster, type Cluster } from './support/cluster';
import { Fixtures } from './support/fixtures';

/**
 * A write validates custom field values against the definitions it reads; deleting a definition strips
 * its values from every object. Done at once, in both orders, a site must never keep a value of a
 * custom field that no longer exists:
 *  - write first: the site's creation is held at the site table (the holder keeps it in SHARE mode); the
 *    delete then comes, and must strip the new site's value too. A create made as one statement reads
 *    the definitions (FOR SHARE) only once it holds the table, so it may instead find the definition
 *    being deleted, wait for that, and be refused: either is a correct order, an orphan value is not.
 *  - delete first: the delete has stripped the values and waits to delete the definition (the holder
 *    keeps the definition table in SHARE mode); the creation then comes, and must be refused.
 */

const ROUNDS = 6;
const describeOnServer = TEST_DATABASE_URL ? describe : describe.skip;

describeOnServer('deleting a custom field vs writing a value of it', () => {
  let c: Cluster;
  let f: Fixtures;
  beforeAll(async () => {
    c = await startCluster(2);
    f = new Fixtures(c.t);
  });
  afterAll(async () => {
    await c.close();
  });

  const orphans = () =>
    f.count(`SELECT count(*) FROM "dcim_site" s, jsonb_object_keys(s."custom_fields") k WHERE NOT EXISTS (SELECT 1 FROM "extras_customfield" c WHERE c."name" = k)`);

  // With a tag the create is a transaction (links are written after the row): it reads the definitions,
  // then waits at the table, so writing first it must be written, and the value stripped.
  for (const [order, tagged] of [['write first', false], ['write first', true], ['delete first', false]] as const) {
    it(`${order}${tagged ? ', in a transaction' : ''}: no site keeps a value of a deleted custom field`, async () => {
      const tags = tagged ? [await f.post('/api/extras/tags/', { name: `cf tag ${f.next()}`, slug: `cf-tag-${f.next()}` })] : [];
      const counts = { rounds: 0, overlapped: 0, written: 0, refused: 0, deleted: 0, other: 0, orphanValues: 0 };
      const before = await orphans();
      for (let i = 0; i < ROUNDS; i++) {
        const name = `cf_${f.next()}`;
        const field = await f.post('/api/extras/custom-fields/', { name, type: 'text', content_types: ['dcim.site'] });
        const n = f.next();
        const write = () => c.instances[0].request('POST', '/api/dcim/sites/', c.t.auth, { name: `CF site ${n}`, slug: `cf-site-${n}`, custom_fields: { [name]: 'value' }, tags });
        const remove = () => c.instances[1].request('DELETE', `/api/extras/custom-fields/${field}/`, c.t.auth);
        const r =
          order === 'write first'
            ? await c.race(['LOCK TABLE "dcim_site" IN SHARE MODE'], write, remove)
            : await c.race(['LOCK TABLE "extras_customfield" IN SHARE MODE'], remove, write);
        const [written, deleted] = order === 'write first' ? [r.first, r.second] : [r.second, r.first];
        counts.rounds++;
        if (r.overlapped) counts.overlapped++;
        if (written.status === 201) counts.written++;
        else if (written.status === 400 && 'custom_fields' in (written.body as object)) counts.refused++;
        else counts.other++;
        if (deleted.status === 204) counts.deleted++;
        else counts.other++;
      }
      counts.orphanValues = (await orphans()) - before;
      report(`custom field deleted vs a value written, ${order}`, counts);
      if (order === 'delete first') expect(counts.refused).toBe(ROUNDS);
      if (tagged) expect(counts.written).toBe(ROUNDS);
      expect(counts.written + counts.refused).toBe(ROUNDS);
      expect({ ...counts, written: 0, refused: 0 }).toEqual({ rounds: ROUNDS, overlapped: ROUNDS, written: 0, refused: 0, deleted: ROUNDS, other: 0, orphanValues: 0 });
    });
  }
});
