import { ApiClient, excerpt, type JsonValue } from './http-client';
import { runLoad } from './load';
import { samplePeak, treeRss } from './process-memory';
import { sleep } from './stats';

/**
 * The template sandbox under load, on the running server: renders/s of a device configuration (48
 * interfaces) through render/, ?export= of the sites there are through a CSV export template, the
 * server's resident memory (its processes together) idle and at its peak under each load, and 6 runaway
 * templates (two lists of 20 million numbers each) at once. Run by `npm run bench` (phase "templates")
 * and alone by `npm run bench:templates`.
 */

export interface TemplateRow {
  load: string;
  connections: number;
  reqPerSec: number;
  p50: number;
  p99: number;
  errors: number;
  peakRssMb: number;
}

export interface TemplateResult {
  rows: TemplateRow[];
  idleRssMb: number;
  sites: number;
  runaway: { statuses: number[]; seconds: number; peakRssMb: number; afterRssMb: number; renderAfter: number };
}

const MB = 1024 * 1024;

export const DEVICE_CONFIG = `hostname {{ device.name }}
{% for i in interfaces %}
interface {{ i.name }}
 description {{ i.description|default("") }}
 mtu {{ i.mtu|default(1500) }}
{% if i.enabled %} no shutdown{% else %} shutdown{% endif %}
{% for ip in i.addresses %} ip address {{ ip.split("/")|first }}
{% endfor %}{% endfor %}
ntp server {{ ntp|join(" ") }}
{{ device.custom_fields|tojson }}`;

export const DEVICE_CONTEXT = {
  device: { name: 'ams1-core-01', site: { name: 'AMS1' }, custom_fields: { owner: 'netops', rack_unit: 42 } },
  ntp: ['10.0.0.1', '10.0.0.2'],
  interfaces: Array.from({ length: 48 }, (_, k) => ({ name: `xe-0/0/${k}`, description: `uplink ${k}`, mtu: k % 2 ? 9000 : null, enabled: k % 5 !== 0, addresses: [`10.${k}.0.1/31`] })),
};

const EXPORT_CSV = 'name,slug,status\n{% for s in queryset %}{{ s.name }},{{ s.slug }},{{ s.status.value }}\n{% endfor %}';
const RUNAWAY = '{% set a = range(0, 20000000) %}{% set b = range(0, 20000000) %}{{ a|length }}';

async function must(api: ApiClient, method: string, url: string, body?: JsonValue): Promise<JsonValue | undefined> {
  const r = await api.request(method, url, body);
  if (r.status >= 300) throw new Error(`${method} ${url}: ${excerpt(r)}`);
  return r.json;
}

export async function measureTemplates(api: ApiClient, server: { baseUrl: string; token: string; pid: number }, seconds: number, connections: number[], log: (line: string) => void): Promise<TemplateResult> {
  const suffix = Date.now().toString(36);
  const config = (await must(api, 'POST', '/api/extras/config-templates/', { name: `bench-device-${suffix}`, template_code: DEVICE_CONFIG })) as { id: number };
  const renderUrl = `/api/extras/config-templates/${config.id}/render/`;
  const sample = (await must(api, 'POST', renderUrl, DEVICE_CONTEXT as unknown as JsonValue)) as { content: string };
  if (!sample.content.includes('interface xe-0/0/47')) throw new Error(`unexpected rendering: ${sample.content.slice(0, 200)}`);
  const exportName = `bench-csv-${suffix}`;
  await must(api, 'POST', '/api/extras/export-templates/', { name: exportName, content_types: ['dcim.site'], template_code: EXPORT_CSV, mime_type: 'text/csv' });
  const sites = ((await must(api, 'GET', '/api/dcim/sites/?limit=1&brief=1')) as { count: number }).count;
  const exported = await api.request('GET', `/api/dcim/sites/?export=${exportName}`);
  if (exported.status !== 200 || exported.text.split('\n').length !== sites + 1) throw new Error(`export: ${excerpt(exported)}`);

  await sleep(2000);
  const idle = treeRss(server.pid);
  const headers = { Authorization: `Token ${server.token}`, 'Content-Type': 'application/json', Accept: 'application/json' };
  const rows: TemplateRow[] = [];
  for (const [label, url, method, body] of [
    ['render/ device configuration (48 interfaces)', renderUrl, 'POST', JSON.stringify(DEVICE_CONTEXT)],
    [`?export= ${sites.toLocaleString('en-US')} sites (CSV)`, `/api/dcim/sites/?export=${exportName}`, 'GET', undefined],
  ] as const) {
    // Unrecorded: every server process starts its sandbox threads and compiles the template.
    await runLoad({ url: `${server.baseUrl}${url}`, headers, method, body, connections: Math.max(...connections), seconds: 1 });
    for (const c of connections) {
      const peak = samplePeak(server.pid);
      const p = await runLoad({ url: `${server.baseUrl}${url}`, headers, method, body, connections: c, seconds });
      const row = { load: label, connections: c, reqPerSec: p.reqPerSec, p50: p.latency.p50, p99: p.latency.p99, errors: p.errors, peakRssMb: peak.stop() / MB };
      rows.push(row);
      log(`  templates: ${label} @${c}: ${row.reqPerSec.toFixed(1)} req/s, p99 ${row.p99.toFixed(1)} ms, peak RSS ${row.peakRssMb.toFixed(0)} MB, ${row.errors} errors`);
    }
  }

  const runaway = (await must(api, 'POST', '/api/extras/config-templates/', { name: `bench-runaway-${suffix}`, template_code: RUNAWAY })) as { id: number };
  const peak = samplePeak(server.pid);
  const t0 = performance.now();
  const answers = await Promise.all(Array.from({ length: 6 }, () => api.request('POST', `/api/extras/config-templates/${runaway.id}/render/`, {})));
  const took = (performance.now() - t0) / 1000;
  const peakRssMb = peak.stop() / MB;
  const after = await api.request('POST', renderUrl, DEVICE_CONTEXT as unknown as JsonValue);
  await sleep(2000);
  const result: TemplateResult = {
    rows,
    idleRssMb: idle / MB,
    sites,
    runaway: { statuses: answers.map((a) => a.status), seconds: took, peakRssMb, afterRssMb: treeRss(server.pid) / MB, renderAfter: after.status },
  };
  log(`  templates: 6 runaway templates at once: ${result.runaway.statuses.join(', ')} in ${took.toFixed(1)} s, peak RSS ${peakRssMb.toFixed(0)} MB; a render afterwards: ${after.status}`);
  return result;
}

/** The report's section. */
export function templateSection(r: TemplateResult): string[] {
  const out = ['| load | connections | req/s | p50 ms | p99 ms | errors | peak RSS MB |', '|---|---:|---:|---:|---:|---:|---:|'];
  for (const x of r.rows) out.push(`| ${x.load} | ${x.connections} | ${x.reqPerSec.toFixed(1)} | ${x.p50.toFixed(1)} | ${x.p99.toFixed(1)} | ${x.errors} | ${x.peakRssMb.toFixed(0)} |`);
  const w = r.runaway;
  out.push('', `Server idle: ${r.idleRssMb.toFixed(0)} MB resident. 6 runaway templates at once (two lists of 20 million numbers each): answered ${w.statuses.join(', ')} in ${w.seconds.toFixed(1)} s, peak ${w.peakRssMb.toFixed(0)} MB, ${w.afterRssMb.toFixed(0)} MB 2 s later; a render afterwards: ${w.renderAfter}.`);
  return out;
}

/** What counts as a failure of the phase: errors under load, a runaway answered other than 200/400, no render afterwards. */
export function templateFailures(r: TemplateResult): string[] {
  const f: string[] = [];
  for (const x of r.rows) if (x.errors) f.push(`templates ${x.load} @${x.connections}: ${x.errors} errors`);
  if (r.runaway.statuses.some((s) => s !== 200 && s !== 400)) f.push(`templates: runaway templates answered ${r.runaway.statuses.join(', ')}`);
  if (r.runaway.renderAfter !== 200) f.push(`templates: a render after the runaway templates answered ${r.runaway.renderAfter}`);
  return f;
}
