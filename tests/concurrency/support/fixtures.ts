import type { TestApp } from '../../support/test-app';

/** Objects the scenarios build on, created through the primary instance as the superuser. */
export class Fixtures {
  private n = 0;
  private deviceType?: number;
  private role?: number;

  constructor(private readonly t: TestApp) {}

  next(): number {
    return ++this.n;
  }

  async post(path: string, body: Record<string, unknown>): Promise<number> {
    const res = await this.t.api.post(path).set(this.t.auth).send(body);
    if (res.status !== 201) throw new Error(`POST ${path} ${JSON.stringify(body)}: ${res.status} ${JSON.stringify(res.body)}`);
    return (res.body as { id: number }).id;
  }

  async site(): Promise<number> {
    const n = this.next();
    return this.post('/api/dcim/sites/', { name: `Site ${n}`, slug: `site-${n}` });
  }

  async region(): Promise<number> {
    const n = this.next();
    return this.post('/api/dcim/regions/', { name: `Region ${n}`, slug: `region-${n}` });
  }

  async tenant(): Promise<number> {
    const n = this.next();
    return this.post('/api/tenancy/tenants/', { name: `Tenant ${n}`, slug: `tenant-${n}` });
  }

  async rack(site: number): Promise<number> {
    return this.post('/api/dcim/racks/', { name: `Rack ${this.next()}`, site });
  }

  async device(site: number, extra: Record<string, unknown> = {}): Promise<number> {
    if (this.deviceType === undefined) {
      const manufacturer = await this.post('/api/dcim/manufacturers/', { name: 'Maker', slug: 'maker' });
      this.deviceType = await this.post('/api/dcim/device-types/', { manufacturer, model: 'Box', slug: 'box' });
      this.role = await this.post('/api/dcim/device-roles/', { name: 'Role', slug: 'role' });
    }
    return this.post('/api/dcim/devices/', { ...this.deviceBody(site), ...extra });
  }

  /** A device's body on a site (the device type and role exist once device() has run). */
  deviceBody(site: number): Record<string, unknown> {
    return { name: `device-${this.next()}`, device_type: this.deviceType, role: this.role, site };
  }

  async interface(device: number): Promise<number> {
    return this.post('/api/dcim/interfaces/', { device, name: `eth${this.next()}`, type: '1000base-t' });
  }

  /** An IPv4 address body, unassigned unless an interface is given. */
  ipBody(iface?: number): Record<string, unknown> {
    const n = this.next();
    const address = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}/24`;
    return iface === undefined ? { address } : { address, assigned_object_type: 'dcim.interface', assigned_object_id: iface };
  }

  async ip(iface?: number): Promise<number> {
    return this.post('/api/ipam/ip-addresses/', this.ipBody(iface));
  }

  /** A count from SQL on the test schema. */
  async count(sql: string, bindings: unknown[] = []): Promise<number> {
    const r = await this.t.knex.raw(`SELECT (${sql})::int AS "n"`, bindings as unknown[]);
    return (r.rows as Array<{ n: number }>)[0]!.n;
  }
}
