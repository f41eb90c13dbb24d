import fs from 'node:fs';
import path from 'node:path';

/**
 * The definitions as their authors wrote them: every schema/<app>/<model>.json parsed directly, not
 * through the engine's loader and resolver. Tests that generate cases per rule read the rules here, so a
 * rule the engine drops or misreads still has its case, and the case fails (an oracle that does not share
 * the code under test). The engine's registry is still used to *run* a case (targets, URLs, valid bodies).
 */

export interface RawField {
  type: string;
  to?: string | string[];
  null?: boolean;
  array?: boolean;
  read_only?: boolean;
  unique?: boolean;
  unique_message?: string;
  default?: unknown;
  default_fn?: string;
  on_delete?: string;
  [word: string]: unknown;
}

type RawUniqueTogether = string[] | { fields: string[]; message?: string; nulls_distinct?: boolean; when_not_null?: string[]; case_insensitive?: string[] };

export interface RawModel {
  /** `<app>.<model>`, as the file names it. */
  label: string;
  /** schema/<app>/<file>.json, relative to the repository. */
  file: string;
  exposed: boolean;
  /** What every user may do with the objects they own without any permission (`owner_may`). */
  ownerMay: string[];
  fields: Record<string, RawField>;
  uniqueTogether: RawUniqueTogether[];
}

/** A uniqueness rule as written: one field's `unique`, or an entry of `unique_together`. */
export interface RawUnique {
  fields: string[];
  message?: string;
  nullsDistinct: boolean;
  /** Field names: the rule binds only rows where these are set. */
  whenNotNull: string[];
}

/** Field types a write never sets (shown, computed or counted): the definition language's read-only kinds. */
const SHOWN_ONLY = new Set(['computed', 'count', 'alias', 'config_context', 'reverse_generic', 'link_peers', 'related', 'net_count']);

export function rawModels(schemaDir: string): Map<string, RawModel> {
  const out = new Map<string, RawModel>();
  for (const app of fs.readdirSync(schemaDir).sort()) {
    const dir = path.join(schemaDir, app);
    if (!fs.statSync(dir).isDirectory()) continue;
    for (const name of fs.readdirSync(dir).sort()) {
      if (!name.endsWith('.json')) continue;
      const def = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as {
        app: string; model: string; exposed?: boolean; owner_may?: string[]; fields?: Record<string, RawField>; unique_together?: RawUniqueTogether[];
      };
      const label = `${def.app}.${def.model}`;
      out.set(label, { label, file: `schema/${app}/${name}`, exposed: def.exposed !== false, ownerMay: def.owner_may ?? [], fields: def.fields ?? {}, uniqueTogether: def.unique_together ?? [] });
    }
  }
  return out;
}

/** Every uniqueness rule the file declares, fields' `unique` first, then `unique_together` in order. */
export function rawUniques(m: RawModel): RawUnique[] {
  const single = Object.entries(m.fields)
    .filter(([, f]) => f.unique === true)
    .map(([name, f]): RawUnique => ({ fields: [name], message: f.unique_message, nullsDistinct: true, whenNotNull: [] }));
  const together = m.uniqueTogether.map((u): RawUnique =>
    Array.isArray(u) ? { fields: u, nullsDistinct: true, whenNotNull: [] } : { fields: u.fields, message: u.message, nullsDistinct: u.nulls_distinct !== false, whenNotNull: u.when_not_null ?? [] },
  );
  return [...single, ...together];
}

/** Whether a write may set the field, by its definition. */
export function rawWritable(f: RawField): boolean {
  return f.read_only !== true && !SHOWN_ONLY.has(f.type);
}
