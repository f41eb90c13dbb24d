import type { TestApp } from '../support/test-app';

/** Calls probe until it returns a value, every 250 ms, for at most boundMs; undefined if it never did. */
export async function pollFor<T>(boundMs: number, probe: () => Promise<T | undefined>): Promise<T | undefined> {
  const until = Date.now() + boundMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined || Date.now() > until) return found;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The i-th test address (10.0.0.1 on), each its own /32. */
export function addressOf(i: number): string {
  const n = i + 1;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}/32`;
}

/** Creates `count` IP addresses through the API in bulk POSTs of `per` each; their ids in order. */
export async function seedAddresses(t: TestApp, count: number, per: number, dnsName: (i: number) => string, from = 0): Promise<number[]> {
  const ids: number[] = [];
  for (let start = 0; start < count; start += per) {
    const body = Array.from({ length: Math.min(per, count - start) }, (_, k) => ({ address: addressOf(from + start + k), dns_name: dnsName(from + start + k) }));
    const res = await t.api.post('/api/ipam/ip-addresses/').set(t.auth).send(body);
    if (res.status !== 201) throw new Error(`seeding failed: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    ids.push(...(res.body as Array<{ id: number }>).map((o) => o.id));
  }
  return ids;
}
