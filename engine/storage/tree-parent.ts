import type { Knex } from 'knex';
import type { ResolvedModel } from '../definitions/registry-types';
import { quoteIdent } from './identifiers';

/** A tree node cannot become its own ancestor: refuses a parent that is the node itself or one of its descendants. */
export async function checkTreeParent(db: Knex | Knex.Transaction, model: ResolvedModel, id: number, parentId: number | null): Promise<string | null> {
  if (parentId === null) return null;
  if (parentId === id) return 'Cannot assign self as parent.';
  const t = quoteIdent(model.table);
  const result = await db.raw(
    `WITH RECURSIVE up("id", "parent_id", "depth") AS (
       SELECT "id", "parent_id", 0 FROM ${t} WHERE "id" = ?
       UNION ALL
       SELECT p."id", p."parent_id", up."depth" + 1 FROM ${t} p JOIN up ON p."id" = up."parent_id" WHERE up."depth" < 100
     ) SELECT 1 FROM up WHERE "id" = ? LIMIT 1`,
    [parentId, id],
  );
  return (result.rows as unknown[]).length ? 'Cannot assign a child object as parent.' : null;
}
