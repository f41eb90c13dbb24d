import type { Application } from './load-applications';
import type { Registry, ResolvedField, ResolvedModel } from './registry-types';
import { filterTable } from '../filters/filter-table';

/** How a field is described in the reference: its kind and what it points at. */
function kindOf(f: ResolvedField): string {
  switch (f.kind) {
    case 'fk':
      return `→ ${f.target.label}`;
    case 'm2m':
      return `→ [${f.target.label}]`;
    case 'tags':
      return 'tags';
    case 'generic_fk':
      return `→ any of ${(f.genericTargets ?? []).map((m) => m.label).join(', ')} (${f.typeColumn} + ${f.idColumn})`;
    case 'choice':
      return f.array ? `list of choice` : 'choice';
    case 'net_count':
      return `count of networks ${f.def.as === 'depth' ? 'containing' : 'inside'} this ${f.def.of ?? ''}${f.def.same?.length ? ` (same ${f.def.same.join(', ')})` : ''}`;
    case 'count':
      return f.countAcross ? `count of ${f.def.via ?? ''} links from every model` : `count of ${f.countOf?.model.label ?? ''}`;
    case 'related':
      if (f.relatedRows.pick) return `${f.def.single ? 'one' : 'list of'} ${f.relatedRows.pick.target.label} (the ${f.relatedRows.pick.name} of the ${f.countOf.model.label} by ${f.countOf.via.name}${f.relatedRows.rowAs ? `, with it as ${f.relatedRows.rowAs}` : ''})`;
      return `${f.def.single ? 'one' : 'list of'} ${f.countOf.model.label} (by ${f.countOf.via.name}${Object.keys(f.def.where ?? {}).length ? `, ${Object.entries(f.def.where ?? {}).map(([k, v]) => `${k}=${String(v)}`).join(', ')}` : ''})`;
    case 'alias':
      return `same as ${f.aliasOf.name}`;
    case 'children':
      return `list of {object_type, object_id} (${f.children.model.label})`;
    default:
      return f.array ? `list of ${f.kind}` : f.kind;
  }
}

function notes(f: ResolvedField): string {
  const parts: string[] = [];
  if (f.required) parts.push('required');
  if (f.readOnly) parts.push('read-only');
  if (f.writeOnly) parts.push('write-only');
  if (f.nullable) parts.push('null');
  if (f.def.unique) parts.push('unique');
  if (f.def.default !== undefined) parts.push(`default ${JSON.stringify(f.def.default)}`);
  if (f.def.max_length) parts.push(`max ${f.def.max_length} chars`);
  if (f.def.min !== undefined || f.def.max !== undefined) parts.push(`${f.def.min ?? '…'}..${f.def.max ?? '…'}`);
  if (f.choices) parts.push(`choices: ${f.choices.entries.map((e) => `\`${e.value}\``).join(', ')}`);
  return parts.join('; ');
}

/** One endpoint under an object (`available-ips/`, `trace/`...): its methods and what it does, in a line. */
export type DescribeDetailAction = (model: ResolvedModel, segment: string) => { methods: string[]; summary: string };

function section(model: ResolvedModel, describe?: DescribeDetailAction): string {
  const lines = [
    `## ${model.label} — \`/api/${model.app}/${model.path}/\``,
    '',
    model.def.description ?? '',
    '',
    `Brief form: ${model.brief.map((b) => `\`${b}\``).join(', ')}. Default ordering: ${model.ordering.map((o) => `\`${o.descending ? '-' : ''}${o.field}\``).join(', ') || '`id`'}.`,
    '',
    '| field | kind | notes |',
    '|---|---|---|',
    ...model.fieldList.map((f) => `| \`${f.name}\` | ${kindOf(f)} | ${notes(f).replace(/\|/g, '\\|')} |`),
    '',
  ];
  if (describe && model.detailActions.size) {
    lines.push('Endpoints under one object:', '');
    for (const segment of model.detailActions.keys()) {
      const d = describe(model, segment);
      lines.push(`- \`/api/${model.app}/${model.path}/{id}/${segment}/\` (${d.methods.join(', ')}): ${d.summary}`);
    }
    lines.push('');
  }
  const uniques = model.uniques.filter((u) => u.fields.length > 1);
  if (uniques.length) lines.push(`Unique together: ${uniques.map((u) => `(${u.fields.join(', ')})`).join('; ')}.`, '');
  const filters = [...filterTable(model).values()].map((d) => `\`${d.name}\`${d.lookups.length > 1 ? ` (${d.lookups.filter((l) => l !== 'exact').join(', ')})` : ''}`);
  lines.push(`Filters: ${filters.join(', ')}${model.search.length ? `, \`q\` (searches ${model.search.join(', ')})` : ''}.`, '');
  return lines.join('\n');
}

/** docs/object-types.md: every object type served, its fields, choices and filters, from the definitions. */
/** An application's own endpoint (`/api/dcim/connected-device/`): its methods and what it does, in a line. */
export type DescribeAppView = (app: Application, segment: string) => { methods: string[]; summary: string };

function appViews(registry: Registry, describe?: DescribeAppView): string[] {
  const lines: string[] = [];
  for (const app of registry.applications) {
    for (const segment of app.views.keys()) {
      const d = describe?.(app, segment);
      lines.push(`- \`/api/${app.name}/${segment}/\`${d ? ` (${d.methods.join(', ')}): ${d.summary}` : ''}`);
    }
  }
  return lines.length ? ['## Other endpoints', '', 'Served by the engine for an application rather than for an object type (`schema/applications.json`):', '', ...lines, ''] : [];
}

export function referenceDoc(registry: Registry, describe?: DescribeDetailAction, describeView?: DescribeAppView): string {
  const models = [...registry.models.values()].filter((m) => m.exposed).sort((a, b) => a.label.localeCompare(b.label));
  const apps = [...new Set(models.map((m) => m.app))];
  const toc = apps.map((app) => `- **${app}**: ${models.filter((m) => m.app === app).map((m) => `[${m.path}](#${m.label.replace('.', '')}--api${m.app}${m.path.replace(/-/g, '')})`).join(', ')}`);
  return [
    '<!-- Generated by `patchbay generate` from schema/. Do not edit: run npm run generate. -->',
    '# Object types',
    '',
    'Every object type Patchbay serves, as its definition in `schema/` says. Filters take the lookups listed after them as `<filter>__<lookup>` (see [filtering.md](filtering.md)).',
    '',
    ...toc,
    '',
    ...appViews(registry, describeView),
    ...models.map((m) => section(m, describe)),
  ].join('\n');
}
