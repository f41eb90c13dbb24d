import type { Registry, ResolvedModel } from '../definitions/registry-types';
import { ident, sql, type Sql } from '../sql/fragment';
import { runRows } from '../database/run';
import { definitionColumns, type CustomFieldDef } from './custom-field-values';
import type { Db } from '../database/db';

/** A model's custom field definitions as one process last read them, and the text they were read as. */
export interface CachedDefinitions {
  defs: CustomFieldDef[];
  /** The definitions as `definitionsText` renders them: a write made with `defs` checks this is still so. */
  text: string;
}

/**
 * The model's custom field definitions as one JSON text, read FOR SHARE (as a transactional write reads
 * them: a definition being changed or deleted is waited for, and read as it leaves it, so the text of a
 * definition that changed differs). Null when the model has no custom fields or no model defines them.
 */
export function definitionsText(registry: Registry, model: ResolvedModel): Sql | null {
  const cf = registry.roles.get('custom_field');
  if (!cf || !model.fieldList.some((f) => f.kind === 'custom_fields')) return null;
  return sql`(SELECT coalesce(json_agg(row_to_json("d"))::text, '[]') FROM (
    SELECT ${definitionColumns(registry)}
      FROM ${ident(cf.table)} WHERE ${model.label}::text = ANY("content_types") ORDER BY "weight", "name" FOR SHARE) AS "d")`;
}

/**
 * Custom field definitions kept per process, so a write that is one statement need not read them first:
 * that statement compares `definitionsText` with the text kept here and writes nothing when they differ
 * (the caller then forgets the entry and writes the transactional way).
 */
export class CustomFieldCache {
  private readonly entries = new Map<string, Promise<CachedDefinitions>>();

  /** The model's definitions (read on first need); null when it has none to read. */
  async get(knex: Db, registry: Registry, model: ResolvedModel): Promise<CachedDefinitions | null> {
    const text = definitionsText(registry, model);
    if (!text) return null;
    let entry = this.entries.get(model.label);
    if (!entry) {
      entry = runRows<{ text: string }>(knex, sql`SELECT ${text} AS "text"`).then(([row]) => {
        const t = row?.text ?? '[]';
        return { defs: JSON.parse(t) as CustomFieldDef[], text: t };
      });
      this.entries.set(model.label, entry);
      entry.catch(() => this.entries.delete(model.label));
    }
    return entry;
  }

  forget(model: ResolvedModel): void {
    this.entries.delete(model.label);
  }
}
