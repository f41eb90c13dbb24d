/**
 * NetBox 3.7.8 measured with the same data set and scenarios on a 2-core machine of the same kind
 * (netbox-3.7.8-baseline.md beside this file, run 2026-11-22T09:50:08Z: wrk -t1, 10 s x 3 reps, median kept).
 * Embedded so the report reads side by side without that file present.
 */

export const BASELINE_SOURCE = 'NetBox 3.7.8 (gunicorn 2 workers x 3 threads, PostgreSQL 15), netbox-3.7.8-baseline.md';

export interface BaselinePoint {
  reqPerSec: number;
  p50: number;
  p99: number;
  respKiB: number;
}

type Pair = [BaselinePoint, BaselinePoint];
const p = (reqPerSec: number, p50: number, p99: number, respKiB: number): BaselinePoint => ({ reqPerSec, p50, p99, respKiB });

/** scenario -> [1 connection, 8 connections] */
export const NETBOX_SCENARIOS: Record<string, Pair> = {
  devices_list_50: [p(2.8, 306.5, 657.5, 118.2), p(3.8, 1852.9, 2791.3, 118.2)],
  devices_list_1000_noctx: [p(0.5, 2001.3, 2300.5, 2162.8), p(0.5, 11398.0, 17796.5, 2162.8)],
  ips_list_1000: [p(0.2, 4461.6, 5363.6, 766.5), p(0.1, 12832.5, 13861.7, 766.5)],
  ips_brief_50: [p(19.9, 39.4, 751.5, 6.3), p(38.0, 178.7, 834.6, 6.3)],
  prefixes_within: [p(7.6, 105.9, 645.4, 59.2), p(7.1, 1002.9, 1745.8, 59.2)],
  interfaces_by_device: [p(6.1, 140.0, 667.4, 10.5), p(14.7, 566.3, 1284.7, 10.5)],
  ips_filter_ic: [p(2.8, 331.1, 995.7, 38.2), p(5.6, 1135.6, 2760.3, 38.2)],
  devices_search_q: [p(3.9, 241.5, 734.8, 23.3), p(8.4, 885.4, 1909.8, 23.3)],
  site_detail: [p(17.5, 51.9, 522.5, 0.8), p(34.3, 230.2, 866.8, 0.8)],
  device_detail: [p(6.8, 117.4, 632.8, 2.3), p(13.5, 610.6, 1315.5, 2.3)],
  count_only: [p(25.5, 31.8, 475.4, 0.2), p(46.2, 135.7, 568.5, 0.2)],
};

export function netboxPoint(scenario: string, connections: number): BaselinePoint | undefined {
  const pair = NETBOX_SCENARIOS[scenario];
  if (!pair) return undefined;
  return connections === 1 ? pair[0] : connections === 8 ? pair[1] : undefined;
}

export interface BaselineWrite {
  objPerSec: number;
  p50: number;
  p99: number;
}

/** `${phase}/${threads}` -> figures (500 IP addresses). */
export const NETBOX_WRITES: Record<string, BaselineWrite> = {
  'create_single/1': { objPerSec: 28.1, p50: 34.1, p99: 56.0 },
  'bulk_patch/1': { objPerSec: 41.4, p50: 2360.8, p99: 2884.4 },
  'bulk_delete/1': { objPerSec: 41.6, p50: 2406.3, p99: 2746.0 },
  'create_single/8': { objPerSec: 27.9, p50: 266.6, p99: 785.0 },
  'bulk_patch/8': { objPerSec: 77.2, p50: 5634.8, p99: 6469.7 },
  'bulk_delete/8': { objPerSec: 65.3, p50: 6943.8, p99: 7656.1 },
};

/** Seeding obj/s per type (bulk POSTs of 250; 23,192 objects in 1,162.8 s = 19.9 obj/s overall). */
export const NETBOX_SEED_OBJ_PER_SEC: Record<string, number> = {
  'regions': 35.9,
  'tenant-groups': 28.7,
  'tenants': 49.0,
  'sites': 32.7,
  'tags': 81.0,
  'manufacturers': 41.3,
  'device-types': 51.6,
  'device-roles': 54.8,
  'platforms': 42.5,
  'config-contexts': 8.3,
  'racks': 48.5,
  'devices': 7.1,
  'interfaces': 18.1,
  'prefixes': 32.8,
  'ip-addresses': 27.8,
  'devices.primary_ip4': 19.3,
  'vlan-groups': 44.3,
  'vlans': 44.9,
};
export const NETBOX_SEED_TOTAL_OBJ_PER_SEC = 19.9;
