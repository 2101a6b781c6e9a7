import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { parseJson } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import type { Sealer } from '../../platform/sealer.js';
import { requireManaged } from './managed.account.js';
import type { ApiCredential, CreateCredential, CredentialSecret } from './managed.schemas.js';
import type { ManagedCredentialsTable } from './managed.table.js';

type CredentialRow = Omit<ManagedCredentialsTable, 'id'> & { id: number };

const LABEL = /^[a-zA-Z0-9_ .-]{2,75}$/;
const SECRET_MAX = 5000;

const toApi = (r: CredentialRow): ApiCredential => ({
  id: r.id,
  label: r.label,
  last_decrypted: r.last_decrypted,
});

function checkSecret(fe: FieldErrors, s: { username?: string | null; password: string }) {
  if (s.username !== undefined && s.username !== null)
    fe.check(
      s.username.length > SECRET_MAX,
      'username',
      'Username must be 5000 characters or less.',
    );
  fe.check(s.password.length === 0, 'password', 'Password is required.');
  fe.check(s.password.length > SECRET_MAX, 'password', 'Password must be 5000 characters or less.');
}

/**
 * Managed credentials: a username and password support may use on the account's servers,
 * stored sealed (platform sealer) and never shown through the API; only the label and when
 * support last opened it are.
 */
export class ManagedCredentialsService {
  constructor(private readonly d: { db: Database; clock: Clock; sealer: Sealer }) {}

  private now(): string {
    return isoSeconds(this.d.clock.nowMs());
  }

  private async load(db: Database, accountId: number, id: number): Promise<CredentialRow> {
    const row = await db
      .forUpdate(
        db.db
          .selectFrom('managed_credentials')
          .selectAll()
          .where('account_id', '=', accountId)
          .where('id', '=', id),
      )
      .executeTakeFirst();
    if (!row) throw errors.notFound();
    return row as CredentialRow;
  }

  private async checkLabel(db: Database, accountId: number, label: string, except?: number) {
    if (!LABEL.test(label)) {
      throw errors.invalidField(
        'label',
        'Label must be 2 to 75 characters of letters, digits, spaces, ".", "-" and "_".',
      );
    }
    let q = db.db
      .selectFrom('managed_credentials')
      .select('id')
      .where('account_id', '=', accountId)
      .where('label', '=', label);
    if (except !== undefined) q = q.where('id', '!=', except);
    if (await q.executeTakeFirst()) throw errors.invalidField('label', 'Label must be unique.');
  }

  async list(p: Principal, params: PageParams): Promise<Page<ApiCredential>> {
    const { db } = this.d;
    await requireManaged(db, p);
    return paginate(
      db.db
        .selectFrom('managed_credentials')
        .where('managed_credentials.account_id', '=', p.accountId),
      (qb) => qb.selectAll('managed_credentials'),
      { where: undefined, orderBy: undefined },
      params,
      { idColumn: 'managed_credentials.id' },
      (r: CredentialRow) => toApi(r),
    );
  }

  async get(p: Principal, id: number): Promise<ApiCredential> {
    await requireManaged(this.d.db, p);
    return toApi(await this.load(this.d.db, p.accountId, id));
  }

  async create(p: Principal, b: CreateCredential): Promise<ApiCredential> {
    await requireManaged(this.d.db, p);
    const fe = new FieldErrors();
    checkSecret(fe, b);
    fe.throwIfAny();
    await this.d.sealer.ready();
    return this.d.db.transaction(async (tx) => {
      await this.checkLabel(tx, p.accountId, b.label);
      const now = this.now();
      const row = await tx.db
        .insertInto('managed_credentials')
        .values({
          account_id: p.accountId,
          label: b.label,
          username_sealed:
            b.username === undefined || b.username === null
              ? null
              : this.d.sealer.sealNow(b.username),
          password_sealed: this.d.sealer.sealNow(b.password),
          last_decrypted: null,
          created: now,
          updated: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toApi(row as CredentialRow);
    });
  }

  /** `PUT`: the label only (the secret changes through `…/update`). */
  async update(p: Principal, id: number, label: string | undefined): Promise<ApiCredential> {
    await requireManaged(this.d.db, p);
    return this.d.db.transaction(async (tx) => {
      await this.load(tx, p.accountId, id);
      if (label !== undefined) {
        await this.checkLabel(tx, p.accountId, label, id);
        await tx.db
          .updateTable('managed_credentials')
          .set({ label, updated: this.now() })
          .where('id', '=', id)
          .execute();
      }
      return toApi(await this.load(tx, p.accountId, id));
    });
  }

  /** `POST …/update`: a new username (or none) and password, sealed. */
  async updateSecret(p: Principal, id: number, b: CredentialSecret): Promise<void> {
    await requireManaged(this.d.db, p);
    const fe = new FieldErrors();
    checkSecret(fe, b);
    fe.throwIfAny();
    await this.d.sealer.ready();
    await this.d.db.transaction(async (tx) => {
      await this.load(tx, p.accountId, id);
      await tx.db
        .updateTable('managed_credentials')
        .set({
          username_sealed:
            b.username === undefined || b.username === null
              ? null
              : this.d.sealer.sealNow(b.username),
          password_sealed: this.d.sealer.sealNow(b.password),
          updated: this.now(),
        })
        .where('id', '=', id)
        .execute();
    });
  }

  /** `POST …/revoke`: the credential goes, and with it from every service that named it. */
  async revoke(p: Principal, id: number): Promise<void> {
    await requireManaged(this.d.db, p);
    await this.d.db.transaction(async (tx) => {
      await this.load(tx, p.accountId, id);
      await tx.db.deleteFrom('managed_credentials').where('id', '=', id).execute();
      const services = await tx.db
        .selectFrom('managed_services')
        .select(['id', 'credentials'])
        .where('account_id', '=', p.accountId)
        .execute();
      for (const s of services) {
        const ids = parseJson<number[]>(s.credentials, []);
        if (!ids.includes(id)) continue;
        await tx.db
          .updateTable('managed_services')
          .set({ credentials: JSON.stringify(ids.filter((c) => c !== id)) })
          .where('id', '=', s.id)
          .execute();
      }
    });
  }

  /**
   * The emulator control standing for support opening a credential: the secret in clear, and
   * `last_decrypted` set to now.
   */
  async reveal(id: number) {
    await this.d.sealer.ready();
    return this.d.db.transaction(async (tx) => {
      const row = (await tx
        .forUpdate(tx.db.selectFrom('managed_credentials').selectAll().where('id', '=', id))
        .executeTakeFirst()) as CredentialRow | undefined;
      if (!row) throw errors.notFound();
      const now = this.now();
      await tx.db
        .updateTable('managed_credentials')
        .set({ last_decrypted: now })
        .where('id', '=', id)
        .execute();
      return {
        id: row.id,
        label: row.label,
        username:
          row.username_sealed === null ? null : await this.d.sealer.open(row.username_sealed),
        password: await this.d.sealer.open(row.password_sealed),
        last_decrypted: now,
      };
    });
  }
}
