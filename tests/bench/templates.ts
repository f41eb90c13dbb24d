/**
 * `npm run bench:templates`: the template sandbox under load, apart from the baseline's scenarios (NetBox's
 * baseline has no rendering figures). On the real server (a child process), over HTTP:
 *   - renders/s of a device configuration (48 interfaces) through POST /api/extras/config-templates/{id}/render/
 *     at 1 and 8 connections, with p50/p99;
 *   - ?export= of 1,000 sites through a CSV export template, at 1 and 8 connections;
 *   - memory: the server's resident memory (its processes together) idle, at its peak under each load, and
 *     at its peak while 6 runaway templates (two lists of 20 million numbers each) render at once.
 *
 *   npm run bench:templates                 # PostgreSQL: patchbay_bench on 127.0.0.1, recreated
 *   npm run bench:templates -- --embedded   # PGlite in a temp folder
 *   npm run bench:templates -- --duration 5
 */
import fs from 'node:fs';
import path from 'node:path';
import { ApiClient, excerpt, type JsonValue } from './http-client';
import { createSuperuser, startServer, type ServerProcess } from './server-process';
import { prepareDatabase } from './database-target';
import { runLoad } from './load';
import { samplePeak, treeRss } from './process-memory';
import { sleep } from './stats';

const ROOT = path.resolve(__dirname, '../..');
const MB = 1024 * 1024;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

async function must(api: ApiClient, method: string, url: string, body?: JsonValue): Promise<JsonValue | undefined> {
  const r = await api.request(method, url, body);
  if (r.status >= 300) throw new Error(`${method} ${url}: ${excerpt(r)}`);
  return r.json;
}

const DEVICE_CONFIG = `hostname {{ device.name }}
{% for i in interfaces %}
interface {{ i.name }}
 description {{ i.description|default("") }}
 mtu {{ i.mtu|default(1500) }}
{% if i.enabled %} no shutdown{% else %} shutdown{% endif %}
{% for ip in i.addresses %} ip address {{ ip.split("/")|first }}
{% endfor %}{% endfor %}
ntp server {{ ntp|join(" ") }}
{{ device.custom_fields|tojson }}`;

const DEVICE_CONTEXT = {
  device: { name: 'ams1-core-01', site: { name: 'AMS1' }, custom_fields: { owner: 'netops', rack_unit: 42 } },
  ntp: ['10.0.0.1', '10.0.0.2'],
  interfaces: Array.from({ length: 48 }, (_, k) => ({ name: `xe-0/0/${k}`, description: `uplink ${k}`, mtu: k % 2 ? 9000 : null, enabled: k % 5 !== 0, addresses: [`10.${k}.0.1/31`] })),
};

const EXPORT_CSV = 'name,slug,status\n{% for s in queryset %}{{ s.name }},{{ s.slug }},{{ s.status.value }}\n{% endfor %}';

async function main(): Promise<void> {
  const embedded = process.argv.includes('--embedded');
  const seconds = arg('duration', 5);
  const db = await prepareDatabase(embedded);
  let server: ServerProcess | null = null;
  const lines: string[] = [];
  const say = (line: string) => {
    console.log(line);
    lines.push(line);
  };
  try {
    const token = await createSuperuser(db.env);
    server = await startServer(db.env, token, path.join(ROOT, 'test-output', 'bench-templates-server.log'));
    const api = new ApiClient(server.baseUrl, token);
    const headers = { Authorization: `Token ${token}`, 'Content-Type': 'application/json', Accept: 'application/json' };

    const config = (await must(api, 'POST', '/api/extras/config-templates/', { name: 'device', template_code: DEVICE_CONFIG })) as { id: number };
    const renderUrl = `/api/extras/config-templates/${config.id}/render/`;
    const sample = (await must(api, 'POST', renderUrl, DEVICE_CONTEXT as unknown as JsonValue)) as { content: string };
    if (!sample.content.includes('interface xe-0/0/47')) throw new Error(`unexpected rendering: ${sample.content.slice(0, 200)}`);

    for (let start = 0; start < 1000; start += 250) {
      await must(api, 'POST', '/api/dcim/sites/', Array.from({ length: 250 }, (_, i) => ({ name: `Site ${start + i}`, slug: `site-${start + i}` })));
    }
    await must(api, 'POST', '/api/extras/export-templates/', { name: 'csv', content_types: ['dcim.site'], template_code: EXPORT_CSV, mime_type: 'text/csv' });
    const exported = await api.request('GET', '/api/dcim/sites/?export=csv');
    if (exported.status !== 200 || exported.text.split('\n').length !== 1001) throw new Error(`export: ${excerpt(exported)}`);

    await sleep(2000);
    const idle = treeRss(server.pid);
    say(`\n${db.label}; ${seconds} s per point\n`);
    say('| load | connections | req/s | p50 ms | p99 ms | errors | peak RSS MB |');
    say('|---|---:|---:|---:|---:|---:|---:|');
    for (const [label, url, method, body] of [
      ['render/ device config (48 interfaces)', renderUrl, 'POST', JSON.stringify(DEVICE_CONTEXT)],
      ['?export= 1,000 sites (CSV)', '/api/dcim/sites/?export=csv', 'GET', undefined],
    ] as const) {
      for (const connections of [1, 8]) {
        const peak = samplePeak(server.pid);
        const p = await runLoad({ url: `${server.baseUrl}${url}`, headers, method, body, connections, seconds });
        say(`| ${label} | ${connections} | ${p.reqPerSec.toFixed(1)} | ${p.latency.p50.toFixed(1)} | ${p.latency.p99.toFixed(1)} | ${p.errors} | ${(peak.stop() / MB).toFixed(0)} |`);
      }
    }

    const runaway = (await must(api, 'POST', '/api/extras/config-templates/', { name: 'runaway', template_code: '{% set a = range(0, 20000000) %}{% set b = range(0, 20000000) %}{{ a|length }}' })) as { id: number };
    const peak = samplePeak(server.pid);
    const t0 = performance.now();
    const answers = await Promise.all(Array.from({ length: 6 }, () => api.request('POST', `/api/extras/config-templates/${runaway.id}/render/`, {})));
    const took = (performance.now() - t0) / 1000;
    const peakRunaway = peak.stop();
    const statuses = answers.map((a) => a.status).join(', ');
    const after = await api.request('POST', renderUrl, DEVICE_CONTEXT as unknown as JsonValue);
    await sleep(2000);
    say(`\nidle RSS ${(idle / MB).toFixed(0)} MB; 6 runaway templates at once: answered ${statuses} in ${took.toFixed(1)} s, peak RSS ${(peakRunaway / MB).toFixed(0)} MB, ${(treeRss(server.pid) / MB).toFixed(0)} MB 2 s later; a render afterwards: ${after.status}`);
    if (server.exited()) throw new Error(`the server ${server.exited()}`);
    fs.mkdirSync(path.join(ROOT, 'test-output'), { recursive: true });
    fs.writeFileSync(path.join(ROOT, 'test-output', `bench-templates-${embedded ? 'pglite' : 'postgres'}.md`), `${lines.join('\n')}\n`);
  } finally {
    await server?.stop();
    await db.cleanup();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
