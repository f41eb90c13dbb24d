/**
 * `npm run bench:templates`: the template phase of `npm run bench` alone (template-phase.ts), on a server
 * with 1,000 sites and nothing else seeded.
 *
 *   npm run bench:templates                 # PostgreSQL: patchbay_bench on 127.0.0.1, recreated
 *   npm run bench:templates -- --embedded   # PGlite in a temp folder
 *   npm run bench:templates -- --duration 5
 */
import fs from 'node:fs';
import path from 'node:path';
import { ApiClient, excerpt } from './http-client';
import { createSuperuser, startServer, type ServerProcess } from './server-process';
import { prepareDatabase } from './database-target';
import { measureTemplates, templateFailures, templateSection } from './template-phase';

const ROOT = path.resolve(__dirname, '../..');

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

async function main(): Promise<number> {
  const embedded = process.argv.includes('--embedded');
  const seconds = arg('duration', 5);
  const db = await prepareDatabase(embedded);
  let server: ServerProcess | null = null;
  try {
    const token = await createSuperuser(db.env);
    server = await startServer(db.env, token, path.join(ROOT, 'test-output', 'bench-templates-server.log'));
    const api = new ApiClient(server.baseUrl, token);
    for (let start = 0; start < 1000; start += 250) {
      const r = await api.request('POST', '/api/dcim/sites/', Array.from({ length: 250 }, (_, i) => ({ name: `Site ${start + i}`, slug: `site-${start + i}` })));
      if (r.status !== 201) throw new Error(`seeding sites: ${excerpt(r)}`);
    }
    const result = await measureTemplates(api, server, seconds, [1, 8], (line) => console.log(line));
    const text = [`${db.label}; ${seconds} s per point`, '', ...templateSection(result)].join('\n');
    console.log(`\n${text}`);
    if (server.exited()) throw new Error(`the server ${server.exited()}`);
    fs.mkdirSync(path.join(ROOT, 'test-output'), { recursive: true });
    fs.writeFileSync(path.join(ROOT, 'test-output', `bench-templates-${embedded ? 'pglite' : 'postgres'}.md`), `${text}\n`);
    const failures = templateFailures(result);
    for (const f of failures) console.error(f);
    return failures.length ? 1 : 0;
  } finally {
    await server?.stop();
    await db.cleanup();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  },
);
