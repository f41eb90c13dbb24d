import type { ResolvedModel } from '../definitions/registry-types';
import { resolvePath } from '../definitions/resolve-registry';
import { column, ident, or, sql, type Sql } from '../sql/fragment';
import { likeEscape } from './filter-values';
import { normalizeInet } from '../validation/ip-values';

/**
 * `q`: NetBox's general search — any of the model's search fields contains the text, case-insensitively.
 * An address or network field also matches when the text is an address it contains.
 */
export function searchCondition(model: ResolvedModel, text: string): Sql {
  const q = text.trim();
  if (!q) return sql`TRUE`;
  const parts: Sql[] = [];
  const ip = normalizeInet(q);
  for (const path of model.search) {
    const route = resolvePath(model, path);
    if (!route?.field.column) continue;
    const holderColumn = route.field.column;
    const inner = (alias: string): Sql[] => {
      const col = column(alias, holderColumn);
      const out: Sql[] = [sql`${col}::text ILIKE ${`%${likeEscape(q)}%`} ESCAPE '\\'`];
      if ((route.field.kind === 'inet' || route.field.kind === 'cidr') && ip.ok) out.push(sql`${col} >>= ${String(ip.value)}::inet`);
      return out;
    };
    if (!route.via.length) {
      parts.push(...inner('t'));
      continue;
    }
    // Through foreign keys: the related rows that match, as nested subqueries.
    let cond = or(inner(`s${route.via.length}`));
    for (let i = route.via.length - 1; i >= 0; i--) {
      const hop = route.via[i]!;
      const outer = i === 0 ? 't' : `s${i}`;
      const alias = `s${i + 1}`;
      cond = sql`${column(outer, hop.column)} IN (SELECT ${column(alias, 'id')} FROM ${ident(hop.target.table)} AS ${ident(alias)} WHERE ${cond})`;
    }
    parts.push(cond);
  }
  return or(parts);
}
