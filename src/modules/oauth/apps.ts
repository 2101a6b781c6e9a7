import { type Static, Type } from '@sinclair/typebox';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors } from '../../errors/errors.js';
import { compileFilter, type FilterSpec } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { DateTime, Nullable, PageOf } from '../../http/schemas/common.js';
import { clientUrl } from './oauth.entities.js';
import { revokeAppTokens } from './oauth.repository.js';
import { resolveRedirectUri } from './console-client.js';

export const AuthorizedAppSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  /** Path-absolute (the server does not know the address clients reach it at). */
  thumbnail_url: Nullable(Type.String()),
  scopes: Type.String(),
  created: DateTime(),
  expiry: Nullable(DateTime()),
  website: Type.String({ format: 'url' }),
});
export type AuthorizedApp = Static<typeof AuthorizedAppSchema>;
export const AuthorizedAppPage = PageOf(AuthorizedAppSchema);
export const AppParams = Type.Object({ appId: Type.Integer() });

const APP_FILTERS: FilterSpec = {
  label: { kind: 'string', column: 'oauth_clients.label' },
  created: { kind: 'datetime', column: 'oauth_apps.created' },
  expiry: { kind: 'datetime', column: 'oauth_apps.expiry' },
};

interface AppRow {
  id: number;
  label: string;
  scopes: string;
  created: string;
  expiry: string | null;
  client_id: string;
  redirect_uri: string;
  thumbnail_type: string | null;
}

/** `origin`: the address the request reached the server at (a system client's site follows it). */
const toApp = (r: AppRow, origin: string): AuthorizedApp => ({
  id: r.id,
  label: r.label,
  thumbnail_url: r.thumbnail_type === null ? null : `${clientUrl(r.client_id)}/thumbnail`,
  scopes: r.scopes,
  created: r.created,
  expiry: r.expiry,
  website: new URL(resolveRedirectUri(r.redirect_uri, origin)).origin,
});

/** `/profile/apps`: the clients the caller granted access to, and revoking them. */
export class AppsService {
  constructor(private readonly db: Database) {}

  private base(db: Database, p: Principal) {
    return db.db
      .selectFrom('oauth_apps')
      .innerJoin('oauth_clients', 'oauth_clients.id', 'oauth_apps.client_pk')
      .where('oauth_apps.user_id', '=', p.userId)
      .where('oauth_apps.account_id', '=', p.accountId);
  }

  private select(qb: ReturnType<AppsService['base']>) {
    return qb.select([
      'oauth_apps.id',
      'oauth_clients.label',
      'oauth_apps.scopes',
      'oauth_apps.created',
      'oauth_apps.expiry',
      'oauth_clients.client_id',
      'oauth_clients.redirect_uri',
      'oauth_clients.thumbnail_type',
    ]);
  }

  list(
    p: Principal,
    params: PageParams,
    xFilter: string | string[] | undefined,
    origin: string,
  ): Promise<Page<AuthorizedApp>> {
    return paginate(
      this.base(this.db, p),
      (qb) => this.select(qb as ReturnType<AppsService['base']>),
      compileFilter(xFilter, APP_FILTERS, this.db.dialect),
      params,
      { idColumn: 'oauth_apps.id' },
      (r: AppRow) => toApp(r, origin),
    );
  }

  async get(p: Principal, id: number, origin: string): Promise<AuthorizedApp> {
    const row = await this.select(this.base(this.db, p))
      .where('oauth_apps.id', '=', id)
      .executeTakeFirst();
    if (!row) throw errors.notFound();
    return toApp(row, origin);
  }

  /** Revokes the app: every token it holds stops working at once. */
  async delete(p: Principal, id: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      const row = await this.base(tx, p)
        .select('oauth_apps.id')
        .where('oauth_apps.id', '=', id)
        .executeTakeFirst();
      if (!row) throw errors.notFound();
      await revokeAppTokens(tx, [id]);
      await tx.db.deleteFrom('oauth_apps').where('id', '=', id).execute();
    });
  }
}
