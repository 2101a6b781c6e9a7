import { randomBytes } from 'node:crypto';
import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import { type Database, toBool } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter, type FilterSpec } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { hashSecret, newSecret } from '../../lib/secrets.js';
import { isoSeconds } from '../../lib/time.js';
import type { EventWriter } from '../events/events.writer.js';
import {
  type OAuthClient,
  type OAuthClientCreate,
  type OAuthClientUpdate,
  REDACTED,
} from './clients.schemas.js';
import { clientRef, clientUrl } from './oauth.entities.js';
import { appIdsOfClient, revokeAppTokens } from './oauth.repository.js';
import type { OAuthClientsTable } from './oauth.table.js';
import { imageType, THUMBNAIL_MAX_BYTES } from './thumbnail.js';

export type ClientRow = Omit<OAuthClientsTable, 'id'> & { id: number };

const CLIENT_FILTERS: FilterSpec = {
  label: { kind: 'string', column: 'oauth_clients.label' },
  public: { kind: 'bool', column: 'oauth_clients.public' },
};

/** Columns read for the API view (the thumbnail bytes are read only when served). */
const VIEW_COLUMNS = [
  'id',
  'client_id',
  'account_id',
  'label',
  'redirect_uri',
  'public',
  'status',
  'secret_hash',
  'thumbnail_type',
  'created',
] as const;
type ViewRow = Omit<ClientRow, 'thumbnail'>;

export function toClient(r: ViewRow, secret = REDACTED): OAuthClient {
  return {
    id: r.client_id,
    redirect_uri: r.redirect_uri,
    label: r.label,
    status: r.status,
    secret,
    thumbnail_url: r.thumbnail_type === null ? null : `${clientUrl(r.client_id)}/thumbnail`,
    public: toBool(r.public),
  };
}

/** RFC 6749 §3.1.2: an absolute URI without a fragment. */
function redirectProblem(fe: FieldErrors, uri: string | undefined): void {
  if (uri === undefined) return;
  let u: URL | undefined;
  try {
    u = new URL(uri);
  } catch {
    u = undefined;
  }
  if (!u || !/^https?:$/.test(u.protocol)) fe.add('redirect_uri', 'Must be a valid http(s) URL');
  else if (uri.includes('#')) fe.add('redirect_uri', 'Must not contain a fragment');
}

/** `/account/oauth-clients`: registrations of the login service's clients. */
export class ClientsService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly events: EventWriter,
  ) {}

  /**
   * A client of the caller's account by its public id, or else by its integer key (the form
   * event references and the entity declaration use: `/v4/account/oauth-clients/{key}`).
   */
  private async find(db: Database, p: Principal, clientId: string): Promise<ViewRow> {
    const q = db.db
      .selectFrom('oauth_clients')
      .select(VIEW_COLUMNS)
      .where('account_id', '=', p.accountId);
    const row =
      (await q.where('client_id', '=', clientId).executeTakeFirst()) ??
      (/^[1-9]\d{0,9}$/.test(clientId) && Number(clientId) <= 2 ** 31 - 1
        ? await q.where('id', '=', Number(clientId)).executeTakeFirst()
        : undefined);
    if (!row) throw errors.notFound();
    return row;
  }

  list(p: Principal, params: PageParams, xFilter: string | string[] | undefined) {
    authz.requireAccountAccess(p, 'read_only');
    return paginate(
      this.db.db.selectFrom('oauth_clients').where('account_id', '=', p.accountId),
      (qb) => qb.select(VIEW_COLUMNS.map((c) => `oauth_clients.${c}` as const)),
      compileFilter(xFilter, CLIENT_FILTERS, this.db.dialect),
      params,
      { idColumn: 'oauth_clients.id' },
      (r: ViewRow) => toClient(r),
    ) as Promise<Page<OAuthClient>>;
  }

  async get(p: Principal, clientId: string): Promise<OAuthClient> {
    authz.requireAccountAccess(p, 'read_only');
    return toClient(await this.find(this.db, p, clientId));
  }

  /** The secret is in this response only (stored as its hash). Event `oauth_client_create`. */
  async create(p: Principal, body: OAuthClientCreate): Promise<OAuthClient> {
    authz.requireAccountAccess(p, 'read_write');
    const fe = new FieldErrors();
    redirectProblem(fe, body.redirect_uri);
    fe.throwIfAny();
    const secret = newSecret();
    return this.db.transaction(async (tx) => {
      const values = {
        client_id: randomBytes(10).toString('hex'),
        account_id: p.accountId,
        label: body.label,
        redirect_uri: body.redirect_uri,
        public: body.public ? 1 : 0,
        status: 'active' as const,
        secret_hash: hashSecret(secret),
        thumbnail_type: null,
        created: isoSeconds(this.clock.nowMs()),
      };
      const { id } = await tx.db
        .insertInto('oauth_clients')
        .values(values)
        .returning('id')
        .executeTakeFirstOrThrow();
      const row = { id, ...values };
      await this.record(tx, p, 'oauth_client_create', row);
      return toClient(row, secret);
    });
  }

  async update(p: Principal, clientId: string, body: OAuthClientUpdate): Promise<OAuthClient> {
    authz.requireAccountAccess(p, 'read_write');
    const fe = new FieldErrors();
    redirectProblem(fe, body.redirect_uri);
    fe.throwIfAny();
    return this.db.transaction(async (tx) => {
      const row = await this.find(tx, p, clientId);
      const next = {
        ...row,
        label: body.label ?? row.label,
        redirect_uri: body.redirect_uri ?? row.redirect_uri,
        public: body.public === undefined ? row.public : body.public ? 1 : 0,
      };
      await tx.db
        .updateTable('oauth_clients')
        .set({ label: next.label, redirect_uri: next.redirect_uri, public: next.public })
        .where('id', '=', row.id)
        .execute();
      await this.record(tx, p, 'oauth_client_update', next);
      return toClient(next);
    });
  }

  /** Removes the client, its grants, codes and every token issued to it. */
  async delete(p: Principal, clientId: string): Promise<void> {
    authz.requireAccountAccess(p, 'read_write');
    await this.db.transaction(async (tx) => {
      const row = await this.find(tx, p, clientId);
      const apps = await appIdsOfClient(tx, row.id);
      await revokeAppTokens(tx, apps);
      await tx.db.deleteFrom('oauth_sessions').where('client_pk', '=', row.id).execute();
      await tx.db.deleteFrom('oauth_apps').where('client_pk', '=', row.id).execute();
      await tx.db.deleteFrom('oauth_clients').where('id', '=', row.id).execute();
      await this.record(tx, p, 'oauth_client_delete', row);
    });
  }

  /** A new secret, shown once; the old one fails from the commit on. */
  async resetSecret(p: Principal, clientId: string): Promise<OAuthClient> {
    authz.requireAccountAccess(p, 'read_write');
    const secret = newSecret();
    return this.db.transaction(async (tx) => {
      const row = await this.find(tx, p, clientId);
      await tx.db
        .updateTable('oauth_clients')
        .set({ secret_hash: hashSecret(secret) })
        .where('id', '=', row.id)
        .execute();
      await this.record(tx, p, 'oauth_client_secret_reset', row);
      return toClient(row, secret);
    });
  }

  /** PUT thumbnail: a PNG, JPEG or GIF recognised by its bytes, at most THUMBNAIL_MAX_BYTES. */
  async setThumbnail(p: Principal, clientId: string, body: unknown): Promise<void> {
    authz.requireAccountAccess(p, 'read_write');
    const bytes = Buffer.isBuffer(body) ? body : undefined;
    if (!bytes || bytes.length === 0)
      throw errors.invalidField('thumbnail', 'An image is required');
    if (bytes.length > THUMBNAIL_MAX_BYTES)
      throw errors.invalidField('thumbnail', `Must be at most ${THUMBNAIL_MAX_BYTES} bytes`);
    const type = imageType(bytes);
    if (!type) throw errors.invalidField('thumbnail', 'Must be a PNG, JPEG or GIF image');
    await this.db.transaction(async (tx) => {
      const row = await this.find(tx, p, clientId);
      await tx.db
        .updateTable('oauth_clients')
        .set({ thumbnail: bytes, thumbnail_type: type })
        .where('id', '=', row.id)
        .execute();
    });
  }

  /** GET thumbnail (public): the image and its type, for any account's client. */
  async thumbnail(clientId: string): Promise<{ type: string; bytes: Buffer }> {
    const row = await this.db.db
      .selectFrom('oauth_clients')
      .select(['thumbnail', 'thumbnail_type'])
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    if (!row?.thumbnail || !row.thumbnail_type) throw errors.notFound();
    return { type: row.thumbnail_type, bytes: Buffer.from(row.thumbnail) };
  }

  private record(
    tx: Database,
    p: Principal,
    action: string,
    row: { id: number; client_id: string; label: string },
  ): Promise<unknown> {
    return this.events.record(tx, {
      accountId: p.accountId,
      action,
      entity: clientRef(row),
      status: 'notification',
      username: p.username,
    });
  }
}
