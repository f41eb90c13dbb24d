import fs from 'node:fs';
import type { Config } from '../config';
import { loadRegistry, openMigrated, packageVersion } from '../boot';
import { systemClock } from '../auth/clock';
import { runImport, type ImportReport } from '../import/run-import';
import { terminalProgress } from '../import/progress';
import { SourceError } from '../import/source-api';

export const IMPORT_USAGE = `import --from URL --token KEY [--sync] [--dry-run] [--strict] [--changelog] [--no-verify] [--report FILE]
                                copy a NetBox 3.7 (read over its REST API) into this database, same ids;
                                run again to resume or, with --sync, to follow the source (docs/migrating-from-netbox.md)`;

function value(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = args[i + 1];
  if (v === undefined || v.startsWith('--')) throw new Error(`${name} needs a value`);
  return v;
}

const FLAGS = new Set(['--sync', '--dry-run', '--strict', '--changelog', '--no-verify', '--from', '--token', '--report']);

function summary(r: ImportReport): string {
  const lines: string[] = [];
  const rows = Object.entries(r.types);
  const w = Math.max(...rows.map(([t]) => t.length), 4);
  lines.push(`${'type'.padEnd(w)}  ${['source', 'target', 'created', 'updated', 'deleted', 'same', 'refused'].map((h) => h.padStart(8)).join('')}`);
  for (const [t, c] of rows) {
    lines.push(`${t.padEnd(w)}  ${[c.source, c.target, c.created, c.updated, c.deleted, c.unchanged, c.refused].map((n) => String(n).padStart(8)).join('')}`);
  }
  lines.push('');
  for (const u of r.unsupported) lines.push(`not carried: ${u.endpoint} (${u.objects} objects): ${u.reason}`);
  for (const u of r.unknown_fields) lines.push(`field Patchbay lacks: ${u.type}.${u.field} (on ${u.objects} objects): not carried`);
  for (const x of r.refused.slice(0, 50)) lines.push(`refused: ${x.type} ${x.id}: ${x.reason}`);
  if (r.refused.length > 50) lines.push(`refused: ... and ${r.refused.length - 50} more (see --report)`);
  for (const x of r.not_deleted) lines.push(`not deleted: ${x.type} ${x.ids.join(', ')}: ${x.reason}`);
  for (const m of r.moved_users) lines.push(`target account moved to make room for the source's ids: ${m}`);
  if (r.unusable_passwords.length) lines.push(`users created with an unusable password (set one to log in): ${r.unusable_passwords.join(', ')}`);
  for (const d of r.differences.slice(0, 50)) lines.push(`difference: ${d.type} ${d.id} ${d.field}: source ${JSON.stringify(d.source)} target ${JSON.stringify(d.target)}`);
  if (r.differences.length > 50) lines.push(`difference: ... and ${r.differences.length - 50} more (see --report)`);
  lines.push(
    `${r.dry_run ? 'dry run: nothing written; ' : ''}${r.objects} objects read in ${r.seconds} s (${r.objects_per_second} objects/s); ` +
      `${r.refused.length} refused, ${r.differences.length} difference${r.differences.length === 1 ? '' : 's'} after the import`,
  );
  return lines.join('\n');
}

export async function importCommand(config: Config, args: readonly string[]): Promise<number> {
  let from: string | undefined;
  let token: string | undefined;
  let reportFile: string | undefined;
  try {
    from = value(args, '--from') ?? process.env.PATCHBAY_IMPORT_FROM;
    token = value(args, '--token') ?? process.env.PATCHBAY_IMPORT_TOKEN;
    reportFile = value(args, '--report') ?? process.env.PATCHBAY_IMPORT_REPORT;
  } catch (e) {
    console.error((e as Error).message);
    return 2;
  }
  const stray = args.filter((a, i) => a.startsWith('--') && !FLAGS.has(a) && !['--from', '--token', '--report'].includes(args[i - 1] ?? ''));
  if (stray.length) {
    console.error(`unknown option ${stray[0]}\nusage: patchbay ${IMPORT_USAGE}`);
    return 2;
  }
  if (!from || !token) {
    console.error(`import needs --from URL and --token KEY (or PATCHBAY_IMPORT_FROM and PATCHBAY_IMPORT_TOKEN)\nusage: patchbay ${IMPORT_USAGE}`);
    return 2;
  }
  const registry = loadRegistry(config.schemaDir);
  const { db } = await openMigrated(config);
  const progress = terminalProgress();
  try {
    const report = await runImport(
      { registry, knex: db.knex, config, version: packageVersion(), embedded: db.embedded, clock: systemClock },
      {
        from,
        token,
        sync: args.includes('--sync'),
        dryRun: args.includes('--dry-run'),
        strict: args.includes('--strict'),
        changelog: args.includes('--changelog'),
        verify: !args.includes('--no-verify'),
        progress,
      },
    );
    if (reportFile) fs.writeFileSync(reportFile, `${JSON.stringify(report, null, 2)}\n`);
    console.log(summary(report));
    const strictFailure = args.includes('--strict') && (report.refused.length > 0 || report.unsupported.length > 0 || report.unknown_fields.length > 0 || report.not_deleted.length > 0);
    if (strictFailure) console.error('--strict: some of the source could not be carried (listed above)');
    return report.differences.length || strictFailure ? 1 : 0;
  } catch (e) {
    progress.stop();
    if (e instanceof SourceError) {
      console.error(`import: ${e.message}`);
      return 2;
    }
    throw e;
  } finally {
    await db.close();
  }
}
