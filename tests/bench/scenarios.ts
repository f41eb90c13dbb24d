import {
  deviceNameMatches, dnsNameMatches, ipsWithBothTags, prefixCount, prefixesWithin10_0, type DataShape,
} from './data-shape';
import { ENDPOINTS as EP } from './seed-plan';
import type { RawQuery } from './raw-sql';
import { expectDetail, expectList, type Verifier } from './verify';
import type { ApiClient } from './http-client';
import { buildTraceTopology, expectTrace, type TraceTopology } from './trace-topology';

/** What a scenario can see once the seed ran. */
export interface ScenarioContext {
  shape: DataShape;
  /** Ids created per endpoint, in creation order ([] when not seeded). */
  ids(endpoint: string): number[];
  /** What the scenario's own setup built (the trace scenario's cabled interfaces). */
  trace?: TraceTopology;
}

/** One row group of the baseline's table: a GET, how to check its answer, and its raw-SQL equivalent. */
export interface Scenario {
  name: string;
  /** In the baseline (NetBox 3.7.8 measured), or added for Patchbay only. */
  inBaseline: boolean;
  /** Endpoints that must be seeded for the scenario to run. */
  needs: string[];
  /** Data of its own, built over HTTP before the scenario's first request (after the seed). */
  setup?(api: ApiClient, ctx: ScenarioContext): Promise<ScenarioContext>;
  path(ctx: ScenarioContext): string;
  verify(ctx: ScenarioContext): Verifier;
  raw?(ctx: ScenarioContext): RawQuery;
}

const IP_BRIEF = ['id', 'url', 'display', 'family', 'address'];
const middle = (ids: number[]): number => ids[Math.floor(ids.length / 2)] ?? 0;
const count = (ctx: ScenarioContext, ep: string): number => ctx.ids(ep).length;

/** NetBox's default orderings (Meta.ordering plus pk), for the raw queries. */
const ORDER = {
  ip: ['t."address"', 't."id"'],
  prefix: ['t."vrf_id" NULLS FIRST', 't."prefix"', 't."id"'],
  site: ['t."name"', 't."id"'],
  vlan: ['t."site_id" NULLS FIRST', 't."group_id" NULLS FIRST', 't."vid"', 't."id"'],
  device: ['t."name"', 't."id"'],
  iface: ['t."device_id"', 't."name"', 't."id"'],
};

function plainList(name: string, endpoint: string, table: string, orderBy: string[], limit: number, inBaseline = false): Scenario {
  return {
    name,
    inBaseline,
    needs: [endpoint],
    path: () => `/api/${endpoint}/?limit=${limit}`,
    verify: (ctx) => expectList({ limit, expected: count(ctx, endpoint) }),
    raw: () => ({ table, select: 'full', orderBy, limit, count: true }),
  };
}

/** In the baseline's order; Patchbay-only list scenarios sit next to their family. */
export const SCENARIOS: Scenario[] = [
  plainList('devices_list_50', EP.devices, 'dcim_device', ORDER.device, 50, true),
  {
    name: 'devices_list_1000_noctx',
    inBaseline: true,
    needs: [EP.devices],
    path: () => `/api/${EP.devices}/?limit=1000&exclude=config_context`,
    verify: (ctx) => expectList({ limit: 1000, expected: count(ctx, EP.devices), excluded: 'config_context' }),
    raw: () => ({ table: 'dcim_device', select: 'full', orderBy: ORDER.device, limit: 1000, count: true }),
  },
  plainList('ips_list_50', EP.ipAddresses, 'ipam_ipaddress', ORDER.ip, 50),
  plainList('ips_list_1000', EP.ipAddresses, 'ipam_ipaddress', ORDER.ip, 1000, true),
  {
    name: 'ips_brief_50',
    inBaseline: true,
    needs: [EP.ipAddresses],
    path: () => `/api/${EP.ipAddresses}/?limit=50&brief=1`,
    verify: (ctx) => expectList({ limit: 50, expected: count(ctx, EP.ipAddresses), briefKeys: IP_BRIEF }),
    raw: () => ({ table: 'ipam_ipaddress', select: ['t."id"', 'family(t."address") AS "family"', 't."address"'], orderBy: ORDER.ip, limit: 50, count: true }),
  },
  plainList('prefixes_list_50', EP.prefixes, 'ipam_prefix', ORDER.prefix, 50),
  plainList('prefixes_list_1000', EP.prefixes, 'ipam_prefix', ORDER.prefix, 1000),
  {
    name: 'prefixes_within',
    inBaseline: true,
    needs: [EP.prefixes],
    path: () => `/api/${EP.prefixes}/?within=10.0.0.0/16&limit=100`,
    verify: (ctx) => expectList({ limit: 100, expected: prefixesWithin10_0(ctx.shape), unfiltered: prefixCount(ctx.shape) }),
    raw: () => ({
      table: 'ipam_prefix', select: 'full', orderBy: ORDER.prefix, limit: 100, count: true,
      where: { sql: 't."prefix" << ?::cidr', bindings: ['10.0.0.0/16'] },
    }),
  },
  {
    // Not in the baseline: netbox#12546, the Ansible inventory's `interfaces: true` reads pages of 1,000 interfaces
    // (7-9 s per page on NetBox, as its users report). The seed has 10 interfaces per device, so >= 1,000 from scale 0.1.
    name: 'interfaces_list_1000',
    inBaseline: false,
    needs: [EP.interfaces],
    path: () => `/api/${EP.interfaces}/?limit=1000`,
    verify: (ctx) => expectList({ limit: 1000, expected: count(ctx, EP.interfaces) }),
    raw: () => ({ table: 'dcim_interface', select: 'full', orderBy: ORDER.iface, limit: 1000, count: true }),
  },
  {
    name: 'interfaces_by_device',
    inBaseline: true,
    needs: [EP.devices, EP.interfaces],
    path: (ctx) => `/api/${EP.interfaces}/?device_id=${middle(ctx.ids(EP.devices))}`,
    verify: (ctx) => expectList({ limit: 50, expected: ctx.shape.interfacesPerDevice, unfiltered: count(ctx, EP.interfaces) }),
    raw: (ctx) => ({
      table: 'dcim_interface', select: 'full', orderBy: ORDER.iface, limit: 50, count: true,
      where: { sql: 't."device_id" = ?', bindings: [middle(ctx.ids(EP.devices))] },
    }),
  },
  {
    name: 'ips_filter_ic',
    inBaseline: true,
    needs: [EP.ipAddresses],
    path: () => `/api/${EP.ipAddresses}/?dns_name__ic=host1&limit=50`,
    verify: (ctx) => expectList({ limit: 50, expected: dnsNameMatches(ctx.shape, 'host1'), unfiltered: count(ctx, EP.ipAddresses) }),
    raw: () => ({
      table: 'ipam_ipaddress', select: 'full', orderBy: ORDER.ip, limit: 50, count: true,
      where: { sql: 't."dns_name" ILIKE ?', bindings: ['%host1%'] },
    }),
  },
  {
    // Not in the baseline: two repeated tag values mean AND (both tags), one EXISTS per tag.
    name: 'ips_tag_and',
    inBaseline: false,
    needs: [EP.ipAddresses, EP.tags],
    path: () => `/api/${EP.ipAddresses}/?tag=tag-1&tag=tag-2&limit=50`,
    verify: (ctx) => expectList({ limit: 50, expected: ipsWithBothTags(ctx.shape, 0, 1), unfiltered: count(ctx, EP.ipAddresses) }),
    raw: () => ({
      table: 'ipam_ipaddress', select: 'full', orderBy: ORDER.ip, limit: 50, count: true,
      where: {
        sql: `EXISTS (SELECT 1 FROM "ipam_ipaddress_tags" j JOIN "extras_tag" g ON g."id" = j."target_id" WHERE j."source_id" = t."id" AND g."slug" = ?)
          AND EXISTS (SELECT 1 FROM "ipam_ipaddress_tags" j JOIN "extras_tag" g ON g."id" = j."target_id" WHERE j."source_id" = t."id" AND g."slug" = ?)`,
        bindings: ['tag-1', 'tag-2'],
      },
    }),
  },
  {
    name: 'devices_search_q',
    inBaseline: true,
    needs: [EP.devices],
    path: () => `/api/${EP.devices}/?q=dev012`,
    verify: (ctx) => expectList({ limit: 50, expected: deviceNameMatches(ctx.shape, 'dev012'), unfiltered: count(ctx, EP.devices) }),
    raw: () => ({
      table: 'dcim_device', select: 'full', orderBy: ORDER.device, limit: 50, count: true,
      where: { sql: 't."name" ILIKE ?', bindings: ['%dev012%'] },
    }),
  },
  plainList('sites_list_50', EP.sites, 'dcim_site', ORDER.site, 50),
  {
    name: 'site_detail',
    inBaseline: true,
    needs: [EP.sites],
    path: (ctx) => `/api/${EP.sites}/${middle(ctx.ids(EP.sites))}/`,
    verify: (ctx) => expectDetail(middle(ctx.ids(EP.sites)), ['name', 'slug', 'region', 'tenant']),
    raw: (ctx) => ({
      table: 'dcim_site', select: 'full', orderBy: ['t."id"'], limit: 1, count: false,
      where: { sql: 't."id" = ?', bindings: [middle(ctx.ids(EP.sites))] },
    }),
  },
  {
    name: 'device_detail',
    inBaseline: true,
    needs: [EP.devices],
    path: (ctx) => `/api/${EP.devices}/${middle(ctx.ids(EP.devices))}/`,
    verify: (ctx) => expectDetail(middle(ctx.ids(EP.devices)), ['name', 'site', 'device_type']),
    raw: (ctx) => ({
      table: 'dcim_device', select: 'full', orderBy: ['t."id"'], limit: 1, count: false,
      where: { sql: 't."id" = ?', bindings: [middle(ctx.ids(EP.devices))] },
    }),
  },
  {
    // Not in the baseline: NetBox's trace of an interface cabled through two patch panels, read from the stored path.
    name: 'interface_trace',
    inBaseline: false,
    needs: [EP.devices, EP.interfaces],
    setup: async (api, ctx) => ({ ...ctx, trace: await buildTraceTopology(api) }),
    path: (ctx) => `/api/${EP.interfaces}/${ctx.trace?.origin ?? 0}/trace/`,
    verify: (ctx) => expectTrace(ctx.trace ?? { origin: 0, far: 0 }),
  },
  plainList('vlans_list_1000', EP.vlans, 'ipam_vlan', ORDER.vlan, 1000),
  {
    name: 'count_only',
    inBaseline: true,
    needs: [EP.ipAddresses],
    path: () => `/api/${EP.ipAddresses}/?limit=1&brief=1`,
    verify: (ctx) => expectList({ limit: 1, expected: count(ctx, EP.ipAddresses), briefKeys: IP_BRIEF }),
    raw: () => ({ table: 'ipam_ipaddress', select: ['t."id"', 'family(t."address") AS "family"', 't."address"'], orderBy: ORDER.ip, limit: 1, count: true }),
  },
];

/** The name of the write phases in --only. */
export const WRITES = 'writes';
/** Devices of a type with 51 component templates, created one POST each (tests/bench/device-writes.ts). */
export const DEVICE_WRITES = 'device_writes';
/** The template phase's name for --only (template-phase.ts). */
export const TEMPLATES = 'templates';
