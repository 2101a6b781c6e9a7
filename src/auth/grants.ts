import type { Database } from '../db/database.js';
import { parseJson } from '../db/database.js';
import { FieldErrors } from '../errors/errors.js';
import { GRANT_TYPES, type GrantType, type Permission } from './authz.js';
import type { EntityRegistry } from '../entities/entities.js';
import { EMPTY_GLOBAL_GRANTS, type GlobalGrants } from './principal.js';
import { principalChanged } from './principal-cache.js';

/** One entry of a per-type grants array (reference: Grant). */
export interface GrantItem {
  id: number;
  permissions: Permission | null;
  label: string;
}

/** The reference's GrantsResponse: `global` plus one array per grant type. */
export type GrantsView = { global: GlobalGrants } & Record<GrantType, GrantItem[]>;

/** A partial grants update (PUT …/grants): omitted types and entities keep their grants. */
export type GrantsUpdate = { global?: Partial<GlobalGrants> } & Partial<
  Record<GrantType, { id: number; permissions: Permission | null }[]>
>;

/** The user whose grants are read or written. */
export interface GrantHolder {
  userId: number;
  accountId: number;
}

/** The stored global grants of a user, completed with the defaults (no access). */
export function parseGlobalGrants(text: string | null | undefined): GlobalGrants {
  return { ...EMPTY_GLOBAL_GRANTS, ...parseJson<Partial<GlobalGrants>>(text, {}) };
}

async function entityPermissions(
  db: Database,
  userId: number,
): Promise<Map<string, Map<number, Permission>>> {
  const rows = await db.db
    .selectFrom('entity_grants')
    .select(['entity_type', 'entity_id', 'permissions'])
    .where('user_id', '=', userId)
    .execute();
  const out = new Map<string, Map<number, Permission>>();
  for (const r of rows) {
    let m = out.get(r.entity_type);
    if (!m) {
      m = new Map();
      out.set(r.entity_type, m);
    }
    m.set(r.entity_id, r.permissions);
  }
  return out;
}

/**
 * The grants of a restricted user. `all`: every entity of the account with the user's permission
 * or null (GET /account/users/{username}/grants); `granted`: only entities the user may access
 * (GET /profile/grants). Grants left on entities that no longer exist are not shown.
 */
export async function grantsView(
  db: Database,
  entities: EntityRegistry,
  holder: GrantHolder,
  mode: 'all' | 'granted',
): Promise<GrantsView> {
  const user = await db.db
    .selectFrom('users')
    .select('global_grants')
    .where('id', '=', holder.userId)
    .executeTakeFirst();
  const perms = await entityPermissions(db, holder.userId);
  const view = {
    global: parseGlobalGrants(user?.global_grants),
  } as GrantsView;
  for (const type of GRANT_TYPES) {
    const mine = perms.get(type);
    const all = await entities.grantable(db, holder.accountId, type);
    const items = all.map((e) => ({
      id: e.id,
      label: e.label,
      permissions: mine?.get(e.id) ?? null,
    }));
    view[type] = mode === 'all' ? items : items.filter((i) => i.permissions !== null);
  }
  return view;
}

/**
 * Applies a partial grants update to a restricted user. Every entity named must belong to the
 * user's account (400 naming `<type>.<index>.id` otherwise); `permissions: null` removes access.
 * Call inside a transaction.
 */
export async function applyGrants(
  db: Database,
  entities: EntityRegistry,
  holder: GrantHolder,
  update: GrantsUpdate,
): Promise<void> {
  const fe = new FieldErrors();
  const known = new Map<GrantType, Set<number>>();
  for (const type of GRANT_TYPES) {
    const items = update[type];
    if (!items || items.length === 0) continue;
    const owned = await entities.grantable(db, holder.accountId, type);
    const ids = new Set(owned.map((e) => e.id));
    known.set(type, ids);
    items.forEach((item, i) => {
      fe.check(
        !ids.has(item.id),
        `${type}.${i}.id`,
        `No ${type} with id ${item.id} on this account`,
      );
    });
  }
  fe.throwIfAny();

  if (update.global) {
    const row = await db.db
      .selectFrom('users')
      .select('global_grants')
      .where('id', '=', holder.userId)
      .executeTakeFirstOrThrow();
    const merged: GlobalGrants = { ...parseGlobalGrants(row.global_grants), ...update.global };
    await db.db
      .updateTable('users')
      .set({ global_grants: JSON.stringify(merged) })
      .where('id', '=', holder.userId)
      .execute();
    await principalChanged(db, { kind: 'user', id: holder.userId });
  }

  for (const type of known.keys()) {
    for (const item of update[type] ?? []) {
      const permissions = item.permissions;
      if (permissions === null) {
        await db.db
          .deleteFrom('entity_grants')
          .where('user_id', '=', holder.userId)
          .where('entity_type', '=', type)
          .where('entity_id', '=', item.id)
          .execute();
        continue;
      }
      await db.db
        .insertInto('entity_grants')
        .values({
          user_id: holder.userId,
          entity_type: type,
          entity_id: item.id,
          permissions,
        })
        .onConflict((oc) =>
          oc.columns(['user_id', 'entity_type', 'entity_id']).doUpdateSet({ permissions }),
        )
        .execute();
    }
  }
}

/** Removes every grant of a user: global grants back to none, no entity grants. */
export async function clearGrants(db: Database, userId: number): Promise<void> {
  await db.db.deleteFrom('entity_grants').where('user_id', '=', userId).execute();
  await db.db
    .updateTable('users')
    .set({ global_grants: JSON.stringify(EMPTY_GLOBAL_GRANTS) })
    .where('id', '=', userId)
    .execute();
  await principalChanged(db, { kind: 'user', id: userId });
}
