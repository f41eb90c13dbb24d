import type { ResolvedField, ResolvedModel } from '../definitions/registry-types';
import type { CallContext } from './api-context';

function typeOf(f: ResolvedField): string {
  switch (f.kind) {
    case 'string': case 'text': case 'slug': case 'password': case 'cidr': case 'inet': case 'mac':
      return 'string';
    case 'integer': case 'positive_integer': case 'count':
      return 'integer';
    case 'boolean':
      return 'boolean';
    case 'decimal': return 'decimal';
    case 'float': return 'float';
    case 'date': return 'date';
    case 'datetime': return 'datetime';
    case 'choice': return 'choice';
    case 'fk': case 'generic_fk': return 'field';
    case 'm2m': case 'tags': return 'list';
    case 'json': case 'custom_fields': return 'json';
    case 'image': return 'image upload';
    default: return 'field';
  }
}

function describe(f: ResolvedField): Record<string, unknown> {
  const d: Record<string, unknown> = { type: typeOf(f), required: f.required && f.def.default === undefined, read_only: f.readOnly, label: f.def.label ?? f.label };
  if (f.def.help_text) d.help_text = f.def.help_text;
  if (f.def.max_length) d.max_length = f.def.max_length;
  if (f.def.min !== undefined) d.min_value = f.def.min;
  if (f.def.max !== undefined) d.max_value = f.def.max;
  if (f.choices) d.choices = f.choices.entries.map((e) => ({ value: e.value, display_name: e.label }));
  return d;
}

/** OPTIONS as DRF's SimpleMetadata shapes it; actions.POST lists writable fields only for a caller who may create. */
export async function optionsFor(ctx: CallContext, model: ResolvedModel, isList: boolean): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {
    name: isList ? `${capital(model.verboseName)} List` : `${capital(model.verboseName)} Instance`,
    description: model.def.description ?? '',
    renders: ['application/json', 'text/html'],
    parses: ['application/json'],
  };
  const mayAdd = !!ctx.principal && ctx.principal.writeEnabled && (await ctx.scope(model, isList ? 'add' : 'change')).allowed;
  if (mayAdd) {
    const fields: Record<string, unknown> = { id: { type: 'integer', required: false, read_only: true, label: 'ID' } };
    for (const f of model.fieldList) {
      if (f.writeOnly && f.kind !== 'password') continue;
      if (f.kind === 'generic_fk') {
        fields[f.typeColumn] = { type: 'string', required: false, read_only: false, label: `${f.label} type` };
        fields[f.idColumn] = { type: 'integer', required: false, read_only: false, label: `${f.label} ID` };
      }
      fields[f.name] = describe(f);
    }
    out.actions = { [isList ? 'POST' : 'PUT']: fields };
  }
  return out;
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
