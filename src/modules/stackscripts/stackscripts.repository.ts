import { type SqlBool, sql } from 'kysely';
import type { Principal } from '../../auth/principal.js';
import { parseJson, toBool } from '../../db/database.js';
import type { Database } from '../../db/database.js';
import type { EntitySummary } from '../../entities/entities.js';
import type { FilterSpec } from '../../lib/filter.js';
import type { ApiStackScript } from './stackscripts.schemas.js';
import type { StackScriptsTable } from './stackscripts.table.js';
import type { UserDefinedField } from './udf.js';

export type StackScriptRow = Omit<StackScriptsTable, 'id'> & { id: number };
export type ListedStackScript = StackScriptRow & { mine: number; deployments_active: number };

/** Filterable fields of StackScript (reference): on the listing's derived table `s`. */
export const STACKSCRIPT_FILTERS: FilterSpec = {
  label: { kind: 'string', column: 's.label' },
  description: { kind: 'string', column: 's.description' },
  deployments_total: { kind: 'int', column: 's.deployments_total' },
  is_public: { kind: 'bool', column: 's.is_public' },
  rev_note: { kind: 'string', column: 's.rev_note' },
  mine: { kind: 'bool', column: 's.mine' },
};

/** The images a StackScript accepts: every image when it lists `any/all`. */
export const ANY_IMAGE = 'any/all';

/**
 * `mine`: the script belongs to the caller's account and the caller is unrestricted or holds a
 * grant on it (reference). Anonymous callers own nothing.
 */
function mineExpr(p: Principal | undefined) {
  if (!p) return sql<number>`0`;
  const own = sql<SqlBool>`stackscripts.account_id = ${p.accountId}`;
  const cond = p.restricted
    ? sql<SqlBool>`${own} and stackscripts.id in (select entity_id from entity_grants where user_id = ${p.userId} and entity_type = 'stackscript')`
    : own;
  return sql<number>`case when ${cond} then 1 else 0 end`;
}

const activeExpr = sql<number>`(select count(*) from stackscript_deployments d where d.stackscript_id = stackscripts.id)`;

/**
 * The StackScripts `p` can see, as the derived table `s` (with `mine` and `deployments_active`):
 * public ones of every account, and its own (restricted users: those they hold a grant on).
 */
export function visibleStackScripts(db: Database, p: Principal | undefined) {
  const inner = db.db
    .selectFrom('stackscripts')
    .selectAll('stackscripts')
    .select([mineExpr(p).as('mine'), activeExpr.as('deployments_active')]);
  return db.db
    .selectFrom(inner.as('s'))
    .where((eb) => eb.or([eb('s.is_public', '=', 1), eb('s.mine', '=', 1)]));
}

export async function findVisible(
  db: Database,
  p: Principal | undefined,
  id: number,
): Promise<ListedStackScript | undefined> {
  return (await visibleStackScripts(db, p)
    .selectAll('s')
    .where('s.id', '=', id)
    .executeTakeFirst()) as ListedStackScript | undefined;
}

export function findOwn(
  db: Database,
  accountId: number,
  id: number,
  lock = false,
): Promise<StackScriptRow | undefined> {
  const q = db.db
    .selectFrom('stackscripts')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId);
  return (lock ? db.forUpdate(q) : q).executeTakeFirst();
}

export function udfsOf(row: Pick<StackScriptRow, 'user_defined_fields'>): UserDefinedField[] {
  return parseJson<UserDefinedField[]>(row.user_defined_fields, []);
}

export function imagesOf(row: Pick<StackScriptRow, 'images'>): string[] {
  return parseJson<string[]>(row.images, []);
}

export function toApiStackScript(r: ListedStackScript): ApiStackScript {
  return {
    id: r.id,
    username: r.username,
    user_gravatar_id: r.user_gravatar_id,
    label: r.label,
    description: r.description,
    images: imagesOf(r),
    deployments_total: Number(r.deployments_total),
    deployments_active: Number(r.deployments_active),
    is_public: toBool(r.is_public),
    created: r.created,
    updated: r.updated,
    rev_note: r.rev_note,
    logo_url: '',
    ordinal: 0,
    script: r.script,
    user_defined_fields: udfsOf(r).map((f) => ({
      ...f,
      ...(f.oneOf !== undefined ? { oneof: f.oneOf } : {}),
      ...(f.manyOf !== undefined ? { manyof: f.manyOf } : {}),
    })),
    mine: toBool(Number(r.mine)),
  };
}

/** Every StackScript of an account (grants views and checks). */
export async function stackScriptLabels(db: Database, accountId: number): Promise<EntitySummary[]> {
  return db.db
    .selectFrom('stackscripts')
    .select(['id', 'label'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
}
