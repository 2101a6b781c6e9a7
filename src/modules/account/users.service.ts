import { authz } from '../../auth/authz.js';
import { clearGrants } from '../../auth/grants.js';
import type { Principal } from '../../auth/principal.js';
import { principalChanged } from '../../auth/principal-cache.js';
import type { Database } from '../../db/database.js';
import { fromBool, toBool } from '../../db/database.js';
import { isUniqueViolation } from '../../errors/db-errors.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import { entityRefs } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import { insertUser } from '../identity/identity.repository.js';
import { emailProblem, usernameProblem } from '../identity/identity.rules.js';
import {
  findUser,
  lockAccount,
  sshKeyLabels,
  toUser,
  USER_FILTERS,
  type UserRow,
  unrestrictedCount,
  usernameTaken,
} from './users.repository.js';
import type { User, UserCreate, UserUpdate } from './users.schemas.js';

const USERNAME_TAKEN = 'Username is already taken';
const LAST_UNRESTRICTED = 'An account must keep at least one unrestricted user';

/** Users of the caller's account. Every operation is for unrestricted users only. */
export class UsersService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly events: EventWriter,
  ) {}

  private async withKeys(db: Database, u: UserRow): Promise<User> {
    const labels = await sshKeyLabels(db, [u.id]);
    return toUser(u, labels.get(u.id) ?? []);
  }

  private async mustFind(db: Database, p: Principal, username: string): Promise<UserRow> {
    const u = await findUser(db, p.accountId, username);
    if (!u) throw errors.notFound();
    return u;
  }

  async list(
    p: Principal,
    params: PageParams,
    xFilter: string | string[] | undefined,
  ): Promise<Page<User>> {
    authz.requireUnrestricted(p);
    const filter = compileFilter(xFilter, USER_FILTERS, this.db.dialect);
    const page = await paginate(
      this.db.db.selectFrom('users').where('users.account_id', '=', p.accountId),
      (qb) => qb.selectAll('users'),
      filter,
      params,
      { idColumn: 'users.id' },
      (row: UserRow) => row,
    );
    const labels = await sshKeyLabels(
      this.db,
      page.data.map((u) => u.id),
    );
    return { ...page, data: page.data.map((u) => toUser(u, labels.get(u.id) ?? [])) };
  }

  async get(p: Principal, username: string): Promise<User> {
    authz.requireUnrestricted(p);
    return this.withKeys(this.db, await this.mustFind(this.db, p, username));
  }

  /** POST /account/users; event `user_create`. */
  async create(p: Principal, body: UserCreate): Promise<User> {
    authz.requireUnrestricted(p);
    const fe = new FieldErrors();
    const up = usernameProblem(body.username);
    if (up) fe.add('username', up);
    const ep = emailProblem(body.email);
    if (ep) fe.add('email', ep);
    fe.throwIfAny();
    try {
      return await this.db.transaction(async (tx) => {
        if (await usernameTaken(tx, body.username))
          throw errors.invalidField('username', USERNAME_TAKEN);
        const id = await insertUser(
          tx,
          {
            accountId: p.accountId,
            username: body.username,
            email: body.email,
            restricted: body.restricted ?? false,
          },
          isoSeconds(this.clock.nowMs()),
        );
        await this.events.record(tx, {
          accountId: p.accountId,
          action: 'user_create',
          entity: entityRefs.user(id, body.username),
          status: 'notification',
          username: p.username,
        });
        return this.withKeys(tx, await this.mustFind(tx, p, body.username));
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw errors.invalidField('username', USERNAME_TAKEN);
      throw err;
    }
  }

  /**
   * PUT /account/users/{username}: `username`, `email`, `restricted`. A change of restricted
   * status starts the user without grants; the last unrestricted user stays unrestricted.
   */
  async update(p: Principal, username: string, body: UserUpdate): Promise<User> {
    authz.requireUnrestricted(p);
    const fe = new FieldErrors();
    if (body.username !== undefined) {
      const up = usernameProblem(body.username);
      if (up) fe.add('username', up);
    }
    if (body.email !== undefined) {
      const ep = emailProblem(body.email);
      if (ep) fe.add('email', ep);
    }
    fe.throwIfAny();
    try {
      return await this.db.transaction(async (tx) => {
        await lockAccount(tx, p.accountId);
        const u = await this.mustFind(tx, p, username);
        const wasRestricted = toBool(u.restricted);
        const restricted = body.restricted ?? wasRestricted;
        if (restricted && !wasRestricted && (await unrestrictedCount(tx, p.accountId)) <= 1) {
          throw errors.invalidField('restricted', LAST_UNRESTRICTED);
        }
        const newName = body.username ?? u.username;
        if (newName !== u.username && (await usernameTaken(tx, newName, u.id))) {
          throw errors.invalidField('username', USERNAME_TAKEN);
        }
        await tx.db
          .updateTable('users')
          .set({
            username: newName,
            ...(body.email !== undefined ? { email: body.email } : {}),
            restricted: fromBool(restricted),
          })
          .where('id', '=', u.id)
          .execute();
        if (restricted !== wasRestricted) await clearGrants(tx, u.id);
        await principalChanged(tx, { kind: 'user', id: u.id });
        await this.events.record(tx, {
          accountId: p.accountId,
          action: 'user_update',
          entity: entityRefs.user(u.id, newName),
          status: 'notification',
          username: u.id === p.userId ? newName : p.username,
        });
        return this.withKeys(tx, await this.mustFind(tx, p, newName));
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw errors.invalidField('username', USERNAME_TAKEN);
      throw err;
    }
  }

  /** DELETE /account/users/{username}: its tokens, keys and grants go with it; `user_delete`. */
  async delete(p: Principal, username: string): Promise<void> {
    authz.requireUnrestricted(p);
    await this.db.transaction(async (tx) => {
      await lockAccount(tx, p.accountId);
      const u = await this.mustFind(tx, p, username);
      if (!toBool(u.restricted) && (await unrestrictedCount(tx, p.accountId)) <= 1) {
        throw errors.reason(LAST_UNRESTRICTED);
      }
      await tx.db.deleteFrom('users').where('id', '=', u.id).execute();
      await principalChanged(tx, { kind: 'user', id: u.id });
      await this.events.record(tx, {
        accountId: p.accountId,
        action: 'user_delete',
        entity: entityRefs.user(u.id, u.username),
        status: 'notification',
        username: p.username,
      });
    });
  }
}
