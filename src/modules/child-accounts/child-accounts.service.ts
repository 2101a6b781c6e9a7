import type { Selectable } from 'kysely';
import { createHash } from 'node:crypto';
import { principalChanged } from '../../auth/principal-cache.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import type { Account } from '../account/account.schemas.js';
import { toAccount } from '../account/account.service.js';
import type { AccountsTable } from '../identity/identity.table.js';
import { insertToken, insertUser } from '../identity/identity.repository.js';

type AccountRow = Selectable<AccountsTable>;

/** How long a proxy user token lives. */
export const PROXY_TOKEN_TTL_MS = 15 * 60_000;

export interface ProxyToken {
  id: number;
  label: string;
  scopes: string;
  token: string;
  created: string;
  expiry: string;
}

/**
 * The proxy user's name, as the real service makes it: the parent's company (its first 15
 * characters) and the first 16 hex digits of the SHA-256 of that company and the child's euuid.
 */
export function proxyUsername(parentCompany: string, childEuuid: string): string {
  const company =
    parentCompany
      .replace(/[^A-Za-z0-9_-]+/g, '-')
      .replace(/[-_]{2,}/g, '-')
      .replace(/^[-_]+/, '')
      .slice(0, 15)
      .replace(/[-_]+$/, '') || 'parent';
  const hash = createHash('sha256').update(`${parentCompany}${childEuuid}`).digest('hex');
  return `${company}_${hash.slice(0, 16)}`;
}

/**
 * Parent and child accounts (later revisions than the reference; as the recorded traffic shows
 * them): a parent's users list their child accounts and get short-lived tokens of each child's
 * proxy user, which acts in the child account with the permissions the child's administrators
 * give it (unrestricted until they restrict it). Links are made by the operator.
 */
export class ChildAccountsService {
  constructor(
    private readonly d: {
      db: Database;
      clock: Clock;
      /** The current month's accrual in cents (the billing engine): `balance_uninvoiced`. */
      uninvoiced: (db: Database, accountId: number) => Promise<number>;
    },
  ) {}

  /**
   * Only a parent account's users: unrestricted, or restricted with `child_account_access`;
   * other callers get 403.
   */
  private async requireParent(p: Principal): Promise<void> {
    if (p.restricted && !p.globalGrants.child_account_access) throw errors.unauthorized();
    const any = await this.d.db.db
      .selectFrom('child_accounts')
      .select('child_id')
      .where('parent_id', '=', p.accountId)
      .executeTakeFirst();
    if (!any) throw errors.unauthorized();
  }

  private async view(db: Database, row: AccountRow): Promise<Account> {
    // The child's own card is not shown to its parent.
    return toAccount({ ...row, balance_uninvoiced_cents: await this.d.uninvoiced(db, row.id) });
  }

  private children(db: Database, parentId: number) {
    return db.db
      .selectFrom('accounts')
      .innerJoin('child_accounts as c', 'c.child_id', 'accounts.id')
      .where('c.parent_id', '=', parentId);
  }

  async list(p: Principal, params: PageParams): Promise<Page<Account>> {
    await this.requireParent(p);
    const page = await paginate(
      this.children(this.d.db, p.accountId),
      (qb) => qb.selectAll('accounts'),
      { where: undefined, orderBy: undefined },
      params,
      { idColumn: 'accounts.id' },
      (r: AccountRow) => r,
    );
    const data: Account[] = [];
    for (const r of page.data) data.push(await this.view(this.d.db, r));
    return { ...page, data };
  }

  private async child(db: Database, p: Principal, euuid: string) {
    const row = await this.children(db, p.accountId)
      .selectAll('accounts')
      .select(['c.proxy_user_id'])
      .where('accounts.euuid', '=', euuid)
      .executeTakeFirst();
    if (!row) throw errors.notFound();
    return row as AccountRow & { proxy_user_id: number };
  }

  async get(p: Principal, euuid: string): Promise<Account> {
    await this.requireParent(p);
    return this.view(this.d.db, await this.child(this.d.db, p, euuid));
  }

  /**
   * A token of the child's proxy user, for 15 minutes, with every scope (the proxy user's
   * permissions limit it). The proxy user is made again if the child deleted it.
   */
  async token(p: Principal, euuid: string): Promise<ProxyToken> {
    await this.requireParent(p);
    return this.d.db.transaction(async (tx) => {
      const child = await this.child(tx, p, euuid);
      const proxy = await this.ensureProxy(tx, child.id, child.proxy_user_id, p.accountId);
      const nowMs = this.d.clock.nowMs();
      const created = isoSeconds(nowMs);
      const expiry = isoSeconds(nowMs + PROXY_TOKEN_TTL_MS);
      const label = `${p.username}_${p.userId}_${Math.floor(nowMs / 1000)}`;
      const t = await insertToken(
        tx,
        { accountId: child.id, userId: proxy, kind: 'pat', label, scopes: '*', expiry },
        created,
      );
      return { id: t.id, label, scopes: '*', token: t.token, created, expiry };
    });
  }

  /** The child's proxy user's id; made (unrestricted) when missing. */
  private async ensureProxy(
    tx: Database,
    childId: number,
    proxyUserId: number,
    parentId: number,
  ): Promise<number> {
    const existing = await tx.db
      .selectFrom('users')
      .select('id')
      .where('id', '=', proxyUserId)
      .where('account_id', '=', childId)
      .executeTakeFirst();
    if (existing) return existing.id;
    const [parent, child] = await Promise.all([
      tx.db.selectFrom('accounts').selectAll().where('id', '=', parentId).executeTakeFirstOrThrow(),
      tx.db.selectFrom('accounts').selectAll().where('id', '=', childId).executeTakeFirstOrThrow(),
    ]);
    const id = await this.makeProxy(tx, parent, child);
    await tx.db
      .updateTable('child_accounts')
      .set({ proxy_user_id: id })
      .where('child_id', '=', childId)
      .execute();
    return id;
  }

  private async makeProxy(
    tx: Database,
    parent: Pick<AccountRow, 'company' | 'email' | 'euuid'>,
    child: Pick<AccountRow, 'id' | 'euuid'>,
  ): Promise<number> {
    const username = proxyUsername(parent.company || parent.euuid, child.euuid);
    const taken = await tx.db
      .selectFrom('users')
      .select(['id', 'account_id'])
      .where('username', '=', username)
      .executeTakeFirst();
    if (taken) {
      if (taken.account_id === child.id) return taken.id;
      throw errors.reason(`The proxy user name ${username} is taken by another account's user.`);
    }
    return insertUser(
      tx,
      { accountId: child.id, username, email: parent.email, restricted: false },
      isoSeconds(this.d.clock.nowMs()),
    );
  }

  // ---- emulator controls: the operator links accounts ----

  /**
   * Makes `child` a child account of `parent`: its proxy user (named after the parent) is made
   * in it, and its billing source becomes the partner's. Neither may be a child already, and a
   * parent cannot become a child.
   */
  async link(parentEuuid: string, childEuuid: string) {
    return this.d.db.transaction(async (tx) => {
      const find = (euuid: string) =>
        tx.db.selectFrom('accounts').selectAll().where('euuid', '=', euuid).executeTakeFirst();
      const [parent, child] = await Promise.all([find(parentEuuid), find(childEuuid)]);
      const fe = new FieldErrors();
      fe.check(!parent, 'parent_euuid', 'No account has this euuid.');
      fe.check(!child, 'child_euuid', 'No account has this euuid.');
      fe.throwIfAny();
      if (!parent || !child) throw errors.notFound();
      if (parent.id === child.id)
        throw errors.invalidField('child_euuid', 'An account cannot be its own child.');
      const links = await tx.db
        .selectFrom('child_accounts')
        .selectAll()
        .where((eb) =>
          eb.or([eb('child_id', 'in', [parent.id, child.id]), eb('parent_id', '=', child.id)]),
        )
        .execute();
      if (links.some((l) => l.child_id === child.id))
        throw errors.invalidField('child_euuid', 'This account is a child account already.');
      if (links.some((l) => l.parent_id === child.id))
        throw errors.invalidField('child_euuid', 'A parent account cannot become a child account.');
      if (links.some((l) => l.child_id === parent.id))
        throw errors.invalidField('parent_euuid', 'A child account cannot be a parent account.');
      const proxy = await this.makeProxy(tx, parent, child);
      await tx.db
        .insertInto('child_accounts')
        .values({
          child_id: child.id,
          parent_id: parent.id,
          proxy_user_id: proxy,
          created: isoSeconds(this.d.clock.nowMs()),
        })
        .execute();
      await tx.db
        .updateTable('accounts')
        .set({ billing_source: 'partner' })
        .where('id', '=', child.id)
        .execute();
      const user = await tx.db
        .selectFrom('users')
        .select('username')
        .where('id', '=', proxy)
        .executeTakeFirstOrThrow();
      return { parent_euuid: parentEuuid, child_euuid: childEuuid, proxy_user: user.username };
    });
  }

  /** Ends a link: the proxy user and its tokens go; the child bills on its own again. */
  async unlink(childEuuid: string): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const child = await tx.db
        .selectFrom('accounts')
        .innerJoin('child_accounts as c', 'c.child_id', 'accounts.id')
        .select(['accounts.id', 'c.proxy_user_id'])
        .where('accounts.euuid', '=', childEuuid)
        .executeTakeFirst();
      if (!child) throw errors.notFound();
      await tx.db.deleteFrom('child_accounts').where('child_id', '=', child.id).execute();
      await tx.db
        .deleteFrom('users')
        .where('id', '=', child.proxy_user_id)
        .where('account_id', '=', child.id)
        .execute();
      await principalChanged(tx, { kind: 'user', id: child.proxy_user_id });
      await tx.db
        .updateTable('accounts')
        .set({ billing_source: 'compute' })
        .where('id', '=', child.id)
        .execute();
    });
  }
}
