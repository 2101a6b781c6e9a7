import type { Principal } from '../../auth/principal.js';
import { principalChanged } from '../../auth/principal-cache.js';
import { formatScopes, isSubset, parseScopes } from '../../auth/scopes.js';
import type { Database } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter, type FilterSpec } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { isoSeconds, parseApiTime } from '../../lib/time.js';
import { entityRefs } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import { insertToken } from '../identity/identity.repository.js';
import type { TokensTable } from '../identity/identity.table.js';
import type { Token, TokenCreate, TokenUpdate } from './tokens.schemas.js';

type TokenRow = Omit<TokensTable, 'id'> & { id: number };

/** Filterable fields of PersonalAccessToken (reference: x-compute-filterable). */
const TOKEN_FILTERS: FilterSpec = {
  created: { kind: 'datetime', column: 'tokens.created' },
  label: { kind: 'string', column: 'tokens.label' },
};
const LABEL_MAX = 100;
/** The label of a token created without one. */
export const DEFAULT_TOKEN_LABEL = 'api-token';

/** Later reads show only the first 16 characters of a token (stored as its prefix). */
const toToken = (r: TokenRow): Token => ({
  id: r.id,
  scopes: r.scopes,
  created: r.created,
  label: r.label,
  token: r.token_prefix,
  expiry: r.expiry,
});

function labelProblem(fe: FieldErrors, label: string | undefined): void {
  if (label !== undefined && (label.length < 1 || label.length > LABEL_MAX))
    fe.add('label', `Length must be 1-${LABEL_MAX} characters`);
}

/** The caller's personal access tokens (`/profile/tokens`). */
export class TokensService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly events: EventWriter,
  ) {}

  private own(db: Database, p: Principal) {
    return db.db
      .selectFrom('tokens')
      .where('tokens.user_id', '=', p.userId)
      .where('tokens.account_id', '=', p.accountId)
      .where('tokens.kind', '=', 'pat');
  }

  private async find(db: Database, p: Principal, id: number): Promise<TokenRow> {
    const row = await this.own(db, p).selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw errors.notFound();
    return row;
  }

  async list(
    p: Principal,
    params: PageParams,
    xFilter: string | string[] | undefined,
  ): Promise<Page<Token>> {
    return paginate(
      this.own(this.db, p),
      (qb) => qb.selectAll('tokens'),
      compileFilter(xFilter, TOKEN_FILTERS, this.db.dialect),
      params,
      { idColumn: 'tokens.id' },
      toToken,
    );
  }

  async get(p: Principal, id: number): Promise<Token> {
    return toToken(await this.find(this.db, p, id));
  }

  /**
   * POST /profile/tokens: at most the scopes of the token making the request. Asking for more
   * (`*` included) is refused, never silently narrowed; omitted scopes mean the caller's own. The
   * same for the expiry: a token never outlives the token that creates it (a 2-hour OAuth token
   * cannot mint a permanent one); an omitted or null expiry is the caller's own. The full token
   * is in this response only. Event `token_create`.
   */
  async create(p: Principal, body: TokenCreate): Promise<Token> {
    const fe = new FieldErrors();
    labelProblem(fe, body.label);
    let scopes = p.scopesText;
    if (body.scopes !== undefined) {
      const wanted = parseScopes(body.scopes);
      if (!wanted)
        fe.add(
          'scopes',
          'scopes must be "*" or a list such as "computes:read_write events:read_only"',
        );
      else if (!isSubset(wanted, p.scopes))
        fe.add('scopes', 'A token cannot have more scopes than the token that creates it');
      else scopes = formatScopes(wanted);
    }
    const nowMs = this.clock.nowMs();
    let expiry: string | null = p.tokenExpiry;
    if (body.expiry !== undefined && body.expiry !== null) {
      const ms = parseApiTime(body.expiry);
      if (Number.isNaN(ms))
        fe.add('expiry', 'expiry must be a date-time such as 2030-01-01T00:00:00');
      else if (ms <= nowMs) fe.add('expiry', 'expiry must be in the future');
      else if (p.tokenExpiry !== null && isoSeconds(ms) > p.tokenExpiry)
        fe.add(
          'expiry',
          `A token cannot outlive the token that creates it (expiry at most ${p.tokenExpiry})`,
        );
      else expiry = isoSeconds(ms);
    }
    fe.throwIfAny();
    const label = body.label ?? DEFAULT_TOKEN_LABEL;
    return this.db.transaction(async (tx) => {
      const created = isoSeconds(nowMs);
      const { id, token } = await insertToken(
        tx,
        { accountId: p.accountId, userId: p.userId, kind: 'pat', label, scopes, expiry },
        created,
      );
      await this.events.record(tx, {
        accountId: p.accountId,
        action: 'token_create',
        entity: entityRefs.token(id, label),
        status: 'notification',
        username: p.username,
      });
      return { id, scopes, created, label, token, expiry };
    });
  }

  /** PUT /profile/tokens/{id}: the label only; event `token_update`. */
  async update(p: Principal, id: number, body: TokenUpdate): Promise<Token> {
    const fe = new FieldErrors();
    labelProblem(fe, body.label);
    fe.throwIfAny();
    return this.db.transaction(async (tx) => {
      const row = await this.find(tx, p, id);
      const label = body.label ?? row.label;
      await tx.db.updateTable('tokens').set({ label }).where('id', '=', id).execute();
      await this.events.record(tx, {
        accountId: p.accountId,
        action: 'token_update',
        entity: entityRefs.token(id, label),
        status: 'notification',
        username: p.username,
      });
      return toToken({ ...row, label });
    });
  }

  /** DELETE /profile/tokens/{id}: revoked at once (a token may revoke itself); `token_delete`. */
  async delete(p: Principal, id: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      const row = await this.find(tx, p, id);
      await tx.db.deleteFrom('tokens').where('id', '=', id).execute();
      await principalChanged(tx, { kind: 'token', id });
      await this.events.record(tx, {
        accountId: p.accountId,
        action: 'token_delete',
        entity: entityRefs.token(id, row.label),
        status: 'notification',
        username: p.username,
      });
    });
  }
}
