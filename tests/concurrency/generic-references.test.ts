import { TEST_DATABASE_URL } from '../support/test-app';
import { report, startCluster, type Cluster, type Reply } from './support/cluster';
import { Fixtures } from './support/fixtures';

/**
 * A generic relation (type + id columns) has no foreign key: what it names is held by row locks.
 * One instance deletes an interface (or its device, which the database cascades to the interface)
 * while another attaches something to the interface, in both orders:
 *  - attach first: the attaching request has checked the interface and waits to insert (the holder
 *    keeps the attaching table in SHARE mode); the delete then comes. The attachment must not outlive
 *    the interface: the delete waits for it and takes it along (cascade), or it is refused.
 *  - delete first: the delete has done all it does before deleting and waits (the holder keeps the
 *    deleted table in SHARE mode); the attachment then comes. It must wait and then be refused with
 *    a 400 naming the field, never committed pointing at a deleted interface.
 * Counted: rounds, rounds that overlapped, answers, and dangling references (must be 0).
 */

const ROUNDS = 8;
const describeOnServer = TEST_DATABASE_URL ? describe : describe.skip;

describeOnServer('delete of an object vs a concurrent generic reference to it', () => {
  let c: Cluster;
  let f: Fixtures;
  let site: number;
  let peerDevice: number;
  beforeAll(async () => {
    c = await startCluster(2);
    f = new Fixtures(c.t);
    site = await f.site();
    peerDevice = await f.device(site);
  });
  afterAll(async () => {
    await c.close();
  });

  interface Attach {
    name: string;
    /** The table the attaching request inserts into (held in SHARE mode to stop it before its insert). */
    table: string;
    /** Sends the attaching request for the interface. */
    send(iface: number): Promise<Reply>;
    /** The field a refused attachment is told on. */
    field: string;
    /** Rows of the attaching table that name an interface that does not exist. */
    dangling: string;
  }

  const ipAddress: Attach = {
    name: 'IP address assigned to an interface',
    table: 'ipam_ipaddress',
    send: (iface) => c.instances[0].request('POST', '/api/ipam/ip-addresses/', c.t.auth, f.ipBody(iface)),
    field: 'assigned_object_id',
    dangling: `SELECT count(*) FROM "ipam_ipaddress" x WHERE x."assigned_object_type" = 'dcim.interface' AND NOT EXISTS (SELECT 1 FROM "dcim_interface" i WHERE i."id" = x."assigned_object_id")`,
  };

  let peer = 0;
  const cable: Attach = {
    name: 'cable terminated on an interface',
    table: 'dcim_cabletermination',
    async send(iface) {
      return c.instances[0].request('POST', '/api/dcim/cables/', c.t.auth, {
        a_terminations: [{ object_type: 'dcim.interface', object_id: iface }],
        b_terminations: [{ object_type: 'dcim.interface', object_id: peer }],
      });
    },
    field: 'a_terminations',
    dangling: `SELECT count(*) FROM "dcim_cabletermination" x WHERE x."termination_type" = 'dcim.interface' AND NOT EXISTS (SELECT 1 FROM "dcim_interface" i WHERE i."id" = x."termination_id")`,
  };

  const victims = [
    { name: 'the interface deleted', table: 'dcim_interface', path: (_device: number, iface: number) => `/api/dcim/interfaces/${iface}/` },
    { name: 'its device deleted', table: 'dcim_device', path: (device: number) => `/api/dcim/devices/${device}/` },
  ];

  for (const attach of [ipAddress, cable]) {
    for (const [victim, order] of victims.flatMap((v) => (['attach first', 'delete first'] as const).map((o) => [v, o] as const))) {
      it(`${attach.name}, ${victim.name}, ${order}: no reference outlives its target`, async () => {
        const counts = { rounds: 0, overlapped: 0, attached: 0, refused: 0, deleted: 0, other: 0, dangling: 0 };
        const before = await f.count(attach.dangling);
        for (let i = 0; i < ROUNDS; i++) {
          const device = await f.device(site);
          const iface = await f.interface(device);
          peer = await f.interface(peerDevice);
          const remove = () => c.instances[1].request('DELETE', victim.path(device, iface), c.t.auth);
          const r =
            order === 'attach first'
              ? await c.race([`LOCK TABLE "${attach.table}" IN SHARE MODE`], () => attach.send(iface), remove)
              : await c.race([`LOCK TABLE "${victim.table}" IN SHARE MODE`], remove, () => attach.send(iface));
          const [attached, deleted] = order === 'attach first' ? [r.first, r.second] : [r.second, r.first];
          counts.rounds++;
          if (r.overlapped) counts.overlapped++;
          if (attached.status === 201) counts.attached++;
          else if (attached.status === 400 && attach.field in (attached.body as object)) counts.refused++;
          else counts.other++;
          if (deleted.status === 204) counts.deleted++;
          else counts.other++;
          if (counts.other) process.stdout.write(`unexpected answers ${JSON.stringify([attached, deleted])}\n`);
        }
        counts.dangling = (await f.count(attach.dangling)) - before;
        report(`${attach.name}, ${victim.name}, ${order}`, counts);
        // Attach first: the attachment commits, then the delete takes it along. Delete first: the attachment is refused.
        const expected = order === 'attach first' ? { attached: ROUNDS, refused: 0 } : { attached: 0, refused: ROUNDS };
        expect(counts).toEqual({ rounds: ROUNDS, overlapped: ROUNDS, ...expected, deleted: ROUNDS, other: 0, dangling: 0 });
      });
    }
  }
});
