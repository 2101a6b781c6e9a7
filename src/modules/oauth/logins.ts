import { type Static, Type } from '@sinclair/typebox';
import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import { type Database, toBool } from '../../db/database.js';
import { errors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter, type FilterSpec } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import { DateTime, PageOf } from '../../http/schemas/common.js';
import type { LoginsTable } from './oauth.table.js';

export const LoginSchema = Type.Object({
  id: Type.Integer(),
  datetime: DateTime(),
  ip: Type.String({ format: 'ip' }),
  username: Type.String(),
  status: Type.String({ enum: ['successful', 'failed'] }),
  restricted: Type.Boolean(),
});
export type Login = Static<typeof LoginSchema>;
export const LoginPage = PageOf(LoginSchema);
export const LoginParams = Type.Object({ loginId: Type.Integer() });

/** Logins are shown for 90 days (spec: logins retention). */
export const LOGIN_RETENTION_MS = 90 * 24 * 3600 * 1000;

const LOGIN_FILTERS: FilterSpec = {
  username: { kind: 'string', column: 'logins.username' },
  status: { kind: 'string', column: 'logins.status' },
  datetime: { kind: 'datetime', column: 'logins.datetime' },
  ip: { kind: 'string', column: 'logins.ip' },
};

type LoginRow = Omit<LoginsTable, 'id'> & { id: number };
const toLogin = (r: LoginRow): Login => ({
  id: r.id,
  datetime: r.datetime,
  ip: r.ip,
  username: r.username,
  status: r.status,
  restricted: toBool(r.restricted),
});

/** A sign-in attempt as the login service records it. */
export interface LoginAttempt {
  user: { id: number; accountId: number; restricted: number } | undefined;
  username: string;
  ip: string;
  status: 'successful' | 'failed';
}

/** Records an attempt; answers its id. */
export async function recordLogin(db: Database, a: LoginAttempt, nowMs: number): Promise<number> {
  const row = await db.db
    .insertInto('logins')
    .values({
      account_id: a.user?.accountId ?? null,
      user_id: a.user?.id ?? null,
      username: a.username,
      ip: a.ip,
      restricted: a.user?.restricted ?? 0,
      status: a.status,
      datetime: isoSeconds(nowMs),
      at_ms: nowMs,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** An attempt recorded as failed before its check turns out successful. */
export async function markLoginSuccessful(db: Database, id: number): Promise<void> {
  await db.db.updateTable('logins').set({ status: 'successful' }).where('id', '=', id).execute();
}

/** Failed attempts since `sinceMs` for a user, or from an address. */
export async function failedSince(
  db: Database,
  by: { userId: number } | { ip: string },
  sinceMs: number,
  exceptId?: number,
): Promise<{ count: number; oldestMs: number | null }> {
  let q = db.db
    .selectFrom('logins')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('at_ms').as('oldest')])
    .where('status', '=', 'failed')
    .where('at_ms', '>', sinceMs);
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  q = 'userId' in by ? q.where('user_id', '=', by.userId) : q.where('ip', '=', by.ip);
  const row = await q.executeTakeFirst();
  const oldest = row?.oldest;
  return {
    count: Number(row?.n ?? 0),
    oldestMs: oldest === null || oldest === undefined ? null : Number(oldest),
  };
}

/** Failed sign-ins: at most 5 per user and 20 per address in 15 minutes. */
export const SIGNIN_WINDOW_MS = 15 * 60 * 1000;
export const SIGNIN_MAX_FAILS_USER = 5;
export const SIGNIN_MAX_FAILS_IP = 20;

/**
 * Seconds until a sign-in may be tried again, when the address or the user has used up its
 * failures; undefined otherwise. Counted from the logins record, so exact across processes.
 * The attempt being checked is already recorded as failed (`attemptId`, not counted): attempts
 * sent at once then see each other, and no more than the limit reach the password check.
 */
export async function signInWait(
  db: Database,
  userId: number | undefined,
  ip: string,
  nowMs: number,
  attemptId?: number,
): Promise<number | undefined> {
  const since = nowMs - SIGNIN_WINDOW_MS;
  const wait = async (by: { userId: number } | { ip: string }, max: number) => {
    const f = await failedSince(db, by, since, attemptId);
    if (f.count < max) return undefined;
    return Math.max(1, Math.ceil(((f.oldestMs ?? nowMs) + SIGNIN_WINDOW_MS - nowMs) / 1000));
  };
  return (
    (await wait({ ip }, SIGNIN_MAX_FAILS_IP)) ??
    (userId === undefined ? undefined : await wait({ userId }, SIGNIN_MAX_FAILS_USER))
  );
}

/** `/account/logins` (unrestricted users: every user's) and `/profile/logins` (one's own). */
export class LoginsService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  private base(p: Principal, own: boolean) {
    let q = this.db.db
      .selectFrom('logins')
      .where('account_id', '=', p.accountId)
      .where('at_ms', '>', this.clock.nowMs() - LOGIN_RETENTION_MS);
    if (own) q = q.where('user_id', '=', p.userId);
    return q;
  }

  list(
    p: Principal,
    own: boolean,
    params: PageParams,
    xFilter: string | string[] | undefined,
  ): Promise<Page<Login>> {
    if (!own) authz.requireUnrestricted(p);
    return paginate(
      this.base(p, own),
      (qb) => qb.selectAll('logins'),
      compileFilter(xFilter, LOGIN_FILTERS, this.db.dialect),
      params,
      { idColumn: 'logins.id' },
      toLogin,
    );
  }

  async get(p: Principal, own: boolean, id: number): Promise<Login> {
    if (!own) authz.requireUnrestricted(p);
    const row = await this.base(p, own).selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw errors.notFound();
    return toLogin(row);
  }
}
