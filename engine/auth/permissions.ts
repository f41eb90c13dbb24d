import type { LinkField, Registry, ResolvedModel } from '../definitions/registry-types';
import { column, ident, or, sql, type Sql } from '../sql/fragment';
import { runRows } from '../database/run';
import type { Config } from '../config';
import type { Principal } from './authenticate';
import { constraintCondition, ConstraintError, inTextOrder } from './constraints';
import { throughCondition, viewThroughField } from './view-through';
import type { Db } from '../database/db';

export type Action = 'view' | 'add' | 'change' | 'delete';

/** One enabled permission that applies to the user, directly or through a group. */
export interface Grant {
  actions: string[];
  objectTypes: string[];
  constraints: unknown;
}

/** What a caller may do with a model: nothing, or the objects matching every condition (none: all objects). */
export type Scope = { allowed: false } | { allowed: true; conditions: Sql[] };

/** The user's enabled permissions, in one query (direct grants and grants to any of their groups). */
export async function loadGrants(db: Db, registry: Registry, userId: number): Promise<Grant[]> {
  const perm = registry.roles.get('permission');
  const user = registry.roles.get('user');
  if (!perm || !user) return [];
  const users = perm.fields.get('users');
  const groups = perm.fields.get('groups');
  if (users?.kind !== 'm2m' || groups?.kind !== 'm2m') throw new Error(`${perm.label} needs many-to-many users and groups`);
  const membership = user.fieldList.find((f): f is LinkField => f.kind === 'm2m' && f.target === groups.target);
  const viaGroup = membership
    ? sql`OR EXISTS (SELECT 1 FROM ${ident(groups.joinTable)} AS "pg" JOIN ${ident(membership.joinTable)} AS "ug" ON "ug"."target_id" = "pg"."target_id" WHERE "pg"."source_id" = "p"."id" AND "ug"."source_id" = ${userId}::bigint)`
    : sql``;
  const rows = await runRows<{ actions: string[]; object_types: string[]; constraints: unknown }>(db, sql`SELECT "p"."actions", "p"."object_types", "p"."constraints" FROM ${ident(perm.table)} AS "p"
      WHERE "p"."enabled" AND (EXISTS (SELECT 1 FROM ${ident(users.joinTable)} AS "pu" WHERE "pu"."source_id" = "p"."id" AND "pu"."target_id" = ${userId}::bigint) ${viaGroup})
      ORDER BY "p"."id"`);
  return rows.map((r) => ({
    actions: r.actions ?? [],
    objectTypes: r.object_types ?? [],
    constraints: r.constraints,
  }));
}

/**
 * Whether anyone may read the type without a permission. `*` leaves private types out (users, groups,
 * permissions, tokens, webhooks...: the definition's `private`), as NetBox's EXEMPT_EXCLUDE_MODELS does;
 * naming one explicitly is the administrator's decision, and opens it as in NetBox (what it holds that is
 * concealed stays so: token keys to their owner, a webhook's secret to those who may change it).
 */
function exemptFromView(config: Config, model: ResolvedModel): boolean {
  if (model.def.exempt_view_permission) return true;
  const exempt = config.exemptViewPermissions;
  if (exempt.includes(model.label)) return true;
  return exempt.includes('*') && !model.private;
}

/**
 * NetBox's permission model, for any model: a superuser may do everything; exempt types may be read
 * by anyone (unless LOGIN_REQUIRED and nobody is logged in); otherwise the action must be granted by
 * an enabled permission, and its constraints (OR-ed across permissions) limit which objects.
 * A model with an owner field limits non-superusers to their own objects on top of that, and
 * grants them what its owner_may lists on those without any permission.
 */
export async function scopeFor(
  principal: Principal | null,
  config: Config,
  model: ResolvedModel,
  action: Action,
  grants: () => Promise<Grant[]>,
): Promise<Scope> {
  if (principal?.isSuperuser) return { allowed: true, conditions: [] };
  const own = await ownScope(principal, config, model, action, grants);
  // A row that holds another object's data (a change, an event) is seen only where that object may be.
  const through = action === 'view' ? viewThroughField(model) : null;
  if (!own.allowed || !through) return own;
  const seen = await throughCondition(through, (target) => scopeFor(principal, config, target, 'view', grants));
  return { allowed: true, conditions: [...own.conditions, seen] };
}

/** What the caller may do with the model's rows by the model's own permissions (its view_through aside). */
async function ownScope(
  principal: Principal | null,
  config: Config,
  model: ResolvedModel,
  action: Action,
  grants: () => Promise<Grant[]>,
): Promise<Scope> {
  // Owned objects (tokens) belong to someone: nobody anonymous sees any, even of an exempt type.
  const owner: Sql[] = !model.ownerField
    ? []
    : principal
      ? [sql`${column('t', model.ownerField.column)} = ${principal.userId}::bigint`]
      : [sql`FALSE`];
  if (action === 'view' && exemptFromView(config, model) && (principal || !config.loginRequired)) {
    return { allowed: true, conditions: owner };
  }
  if (!principal) return { allowed: false };
  // What every user may do with their own objects (NetBox's DEFAULT_PERMISSIONS: their own tokens).
  if (model.ownerMay.has(action)) return { allowed: true, conditions: owner };
  const relevant = (await grants()).filter((g) => g.objectTypes.includes(model.label) && g.actions.includes(action));
  if (!relevant.length) return { allowed: false };
  const ors: Sql[] = [];
  for (const g of relevant) {
    let c: Sql | null;
    try {
      c = g.constraints === null || g.constraints === undefined ? null : constraintCondition(model, g.constraints, principal.userId);
    } catch (e) {
      // A constraint that names nothing this model has grants nothing (fail closed).
      if (!(e instanceof ConstraintError)) throw e;
      continue;
    }
    if (!c) return { allowed: true, conditions: owner };
    ors.push(c);
  }
  if (!ors.length) return { allowed: false };
  return { allowed: true, conditions: [...owner, or(inTextOrder(ors))] };
}
