import { authz } from '../../auth/authz.js';
import { applyGrants, type GrantsUpdate, type GrantsView, grantsView } from '../../auth/grants.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { toBool } from '../../db/database.js';
import { errors } from '../../errors/errors.js';
import type { EntityRegistry } from '../../entities/entities.js';
import { findUser } from './users.repository.js';

/**
 * Grants of restricted users: managed by unrestricted users of the same account
 * (`/account/users/{username}/grants`), and read by each user for itself (`/profile/grants`).
 * Unrestricted users have no grants: their views answer 204.
 */
export class GrantsService {
  constructor(
    private readonly db: Database,
    private readonly entities: EntityRegistry,
  ) {}

  /** GET /account/users/{username}/grants: every entity of the account; undefined = 204. */
  async ofUser(p: Principal, username: string): Promise<GrantsView | undefined> {
    authz.requireUnrestricted(p);
    const u = await findUser(this.db, p.accountId, username);
    if (!u) throw errors.notFound();
    if (!toBool(u.restricted)) return undefined;
    return grantsView(this.db, this.entities, { userId: u.id, accountId: p.accountId }, 'all');
  }

  /** PUT /account/users/{username}/grants: a partial update; answers the full grants. */
  async update(p: Principal, username: string, body: GrantsUpdate): Promise<GrantsView> {
    authz.requireUnrestricted(p);
    return this.db.transaction(async (tx) => {
      const u = await findUser(tx, p.accountId, username);
      if (!u) throw errors.notFound();
      if (!toBool(u.restricted))
        throw errors.reason('Grants are not available for unrestricted users');
      const holder = { userId: u.id, accountId: p.accountId };
      await applyGrants(tx, this.entities, holder, body);
      return grantsView(tx, this.entities, holder, 'all');
    });
  }

  /** GET /profile/grants: the caller's own grants, only entities it may access; undefined = 204. */
  async ofCaller(p: Principal): Promise<GrantsView | undefined> {
    if (!p.restricted) return undefined;
    return grantsView(
      this.db,
      this.entities,
      { userId: p.userId, accountId: p.accountId },
      'granted',
    );
  }
}
