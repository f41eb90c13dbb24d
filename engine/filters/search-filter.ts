import type { ResolvedModel } from '../definitions/registry-types';
import { resolvePath } from '../definitions/resolve-registry';
import type { Condition } from '../query/conditions';
import { quoteIdent } from '../storage/identifiers';
import { likeEscape } from './filter-values';
import { normalizeInet } from '../validation/ip-values';

/**
 * `q`: NetBox's general search — any of the model's search fields contains the text, case-insensitively.
 * An address or network field also matches when the text is an address it contains.
 */
export function searchCondition(model: ResolvedModel, text: string): Condition {
  const q = text.trim();
  if (!q) return { sql: 'TRUE', bindings: [] };
  const parts: Condition[] = [];
  const ip = normalizeInet(q);
  for (const path of model.search) {
    const route = resolvePath(model, path);
    if (!route) continue;
    const inner = (alias: string): Condition[] => {
      const col = `"${alias}".${quoteIdent(route.field.column!)}`;
      const out: Condition[] = [{ sql: `${col}::text ILIKE ? ESCAPE '\\'`, bindings: [`%${likeEscape(q)}%`] }];
      if ((route.field.kind === 'inet' || route.field.kind === 'cidr') && ip.ok) out.push({ sql: `${col} >>= ?::inet`, bindings: [ip.value] });
      return out;
    };
    if (!route.via.length) {
      parts.push(...inner('t'));
      continue;
    }
    // Through foreign keys: the related rows that match, as nested subqueries.
    let conds = inner(`s${route.via.length}`);
    let cond: Condition = { sql: conds.map((c) => `(${c.sql})`).join(' OR '), bindings: conds.flatMap((c) => c.bindings) };
    for (let i = route.via.length - 1; i >= 0; i--) {
      const hop = route.via[i]!;
      const outer = i === 0 ? '"t"' : `"s${i}"`;
      cond = { sql: `${outer}.${quoteIdent(hop.column!)} IN (SELECT "s${i + 1}"."id" FROM ${quoteIdent(hop.target!.table)} AS "s${i + 1}" WHERE ${cond.sql})`, bindings: cond.bindings };
    }
    conds = [cond];
    parts.push(...conds);
  }
  if (!parts.length) return { sql: 'FALSE', bindings: [] };
  return { sql: parts.map((p) => `(${p.sql})`).join(' OR '), bindings: parts.flatMap((p) => p.bindings) };
}
