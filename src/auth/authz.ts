import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Database } from '../db/database.js';
import { errors } from '../errors/errors.js';
import type { GlobalGrantName, Principal } from './principal.js';

/** Entity types that carry per-entity grants (reference: GrantsResponse keys). */
export const GRANT_TYPES = [
  'compute',
  'database',
  'domain',
  'firewall',
  'image',
  'longview',
  'nodebalancer',
  'stackscript',
  'volume',
  'vpc',
] as const;
export type GrantType = (typeof GRANT_TYPES)[number];
export type Permission = 'read_only' | 'read_write';

/**
 * The one authorisation mechanism. Routes declare scopes; services call these for grants.
 * Entities of another account are reported as not found, never as forbidden.
 */
export const authz = {
  /** Endpoints the reference marks "unrestricted only". */
  requireUnrestricted(p: Principal): void {
    if (p.restricted) throw errors.unauthorized();
  },

  /** Creates need the matching global `add_*` grant. */
  requireGlobal(p: Principal, grant: GlobalGrantName): void {
    if (p.restricted && !p.globalGrants[grant]) throw errors.unauthorized();
  },

  /** Account-area endpoints: the global `account_access` grant. */
  requireAccountAccess(p: Principal, level: Permission): void {
    if (!p.restricted) return;
    const have = p.globalGrants.account_access;
    if (have === null || (level === 'read_write' && have !== 'read_write'))
      throw errors.unauthorized();
  },

  /** The caller's permission on an entity of its own account (unrestricted: read_write). */
  async permissionOn(
    db: Database,
    p: Principal,
    type: GrantType,
    id: number,
  ): Promise<Permission | null> {
    if (!p.restricted) return 'read_write';
    const row = await db.db
      .selectFrom('entity_grants')
      .select('permissions')
      .where('user_id', '=', p.userId)
      .where('entity_type', '=', type)
      .where('entity_id', '=', id)
      .executeTakeFirst();
    return row?.permissions ?? null;
  },

  /**
   * Checks access to an entity already known to belong to the caller's account. No grant at all:
   * 404 (the entity is hidden from the user's lists too). A read_only grant for a write: 403.
   */
  async requireEntity(
    db: Database,
    p: Principal,
    type: GrantType,
    id: number,
    level: Permission,
  ): Promise<void> {
    const have = await authz.permissionOn(db, p, type, id);
    if (have === null) throw errors.notFound();
    if (level === 'read_write' && have !== 'read_write') throw errors.unauthorized();
  },

  /**
   * A SQL condition that keeps only the entities the caller may see. `idColumn` is the entity id
   * column of the listed table. Unrestricted users see everything of their account.
   */
  visible(p: Principal, type: GrantType, idColumn: string): RawBuilder<SqlBool> | undefined {
    if (!p.restricted) return undefined;
    return sql<SqlBool>`${sql.ref(idColumn)} in (select entity_id from entity_grants where user_id = ${p.userId} and entity_type = ${type})`;
  },

  /** A restricted user who creates an entity gets read_write on it, as the real service does. */
  async grantCreator(db: Database, p: Principal, type: GrantType, id: number): Promise<void> {
    if (!p.restricted) return;
    await db.db
      .insertInto('entity_grants')
      .values({ user_id: p.userId, entity_type: type, entity_id: id, permissions: 'read_write' })
      .execute();
  },

  /** Removes every grant on a deleted entity. */
  async dropEntity(db: Database, type: GrantType, id: number): Promise<void> {
    await db.db
      .deleteFrom('entity_grants')
      .where('entity_type', '=', type)
      .where('entity_id', '=', id)
      .execute();
  },
};
