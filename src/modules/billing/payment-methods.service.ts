import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import { type Database, fromBool, toBool } from '../../db/database.js';
import { errors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import { zipProblem } from '../account/account.rules.js';
import { entityRefs } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import type { PaymentMethodsTable } from './billing.table.js';
import {
  ACTIVE_METHODS_MAX,
  ADDED_PER_DAY_MAX,
  type CardInput,
  checkCard,
} from './payment-methods.rules.js';
import type { PaymentMethod, PaymentMethodCreate } from './payment-methods.schemas.js';

type Row = Omit<PaymentMethodsTable, 'id'> & { id: number };
const DAY_MS = 86_400_000;

export function toPaymentMethod(r: Row): PaymentMethod {
  return {
    id: r.id,
    type: r.type,
    is_default: toBool(r.is_default),
    created: r.created,
    data: {
      card_type: r.card_type,
      last_four: r.last_four,
      expiry: `${String(r.expiry_month).padStart(2, '0')}/${r.expiry_year}`,
    },
  };
}

/** The account's default card as `GET /account` shows it (`credit_card`). */
export async function defaultCard(
  db: Database,
  accountId: number,
): Promise<{ last_four: string | null; expiry: string | null }> {
  const r = await db.db
    .selectFrom('payment_methods')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('active', '=', 1)
    .where('is_default', '=', 1)
    .executeTakeFirst();
  if (!r) return { last_four: null, expiry: null };
  return { last_four: r.last_four, expiry: toPaymentMethod(r).data.expiry };
}

/**
 * Payment methods (credit cards) of an account. Every rule is checked inside the transaction that
 * adds, with the account row locked, so the limits hold under concurrent requests.
 */
export class PaymentMethodsService {
  constructor(private readonly d: { db: Database; clock: Clock; events: EventWriter }) {}

  async list(
    p: Principal,
    params: PageParams,
    xFilter: string | string[] | undefined,
  ): Promise<Page<PaymentMethod>> {
    authz.requireAccountAccess(p, 'read_only');
    return paginate(
      this.d.db.db
        .selectFrom('payment_methods')
        .where('account_id', '=', p.accountId)
        .where('active', '=', 1),
      (qb) => qb.selectAll('payment_methods'),
      compileFilter(xFilter, {}, this.d.db.dialect),
      params,
      { idColumn: 'payment_methods.id' },
      toPaymentMethod,
    );
  }

  async get(p: Principal, id: number): Promise<PaymentMethod> {
    authz.requireAccountAccess(p, 'read_only');
    return toPaymentMethod(await this.find(this.d.db, p, id));
  }

  /** POST /account/payment-methods. Event `payment_method_add`. */
  async create(p: Principal, body: PaymentMethodCreate): Promise<void> {
    authz.requireAccountAccess(p, 'read_write');
    await this.add(p, body.data, 'data.', body.is_default, 'payment_method_add');
  }

  /** POST /account/credit-card (deprecated): adds a card and makes it the default. */
  async addCreditCard(p: Principal, body: CardInput): Promise<void> {
    authz.requireAccountAccess(p, 'read_write');
    await this.add(p, body, '', true, 'credit_card_updated');
  }

  /** DELETE: deactivates the method; the default one cannot be deleted. */
  async remove(p: Principal, id: number): Promise<void> {
    authz.requireAccountAccess(p, 'read_write');
    await this.d.db.transaction(async (tx) => {
      await this.lockAccount(tx, p.accountId);
      const row = await this.find(tx, p, id);
      if (toBool(row.is_default))
        throw errors.reason('You cannot delete your default payment method.');
      await tx.db.updateTable('payment_methods').set({ active: 0 }).where('id', '=', id).execute();
    });
  }

  /** POST …/make-default: this method becomes the default, the others lose it. */
  async makeDefault(p: Principal, id: number): Promise<void> {
    authz.requireAccountAccess(p, 'read_write');
    await this.d.db.transaction(async (tx) => {
      await this.lockAccount(tx, p.accountId);
      await this.find(tx, p, id);
      await this.setDefault(tx, p.accountId, id);
    });
  }

  private async add(
    p: Principal,
    card: CardInput,
    prefix: string,
    isDefault: boolean,
    action: 'payment_method_add' | 'credit_card_updated',
  ): Promise<void> {
    const nowMs = this.d.clock.nowMs();
    const checked = checkCard(card, nowMs, prefix);
    await this.d.db.transaction(async (tx) => {
      const account = await this.lockAccount(tx, p.accountId);
      // A valid zip: the account's rule, and at least one letter or digit.
      if (!/[A-Za-z0-9]/.test(account.zip) || zipProblem(account.zip) !== undefined) {
        throw errors.reason(
          'A valid zip is required in the account billing address before adding a payment method (PUT /account).',
        );
      }
      const counts = await tx.db
        .selectFrom('payment_methods')
        .select((eb) => [
          eb.fn.sum<number>(eb.case().when('active', '=', 1).then(1).else(0).end()).as('active'),
          eb.fn
            .sum<number>(
              eb
                .case()
                .when('created_ms', '>', nowMs - DAY_MS)
                .then(1)
                .else(0)
                .end(),
            )
            .as('today'),
          eb.fn
            .sum<number>(
              eb
                .case()
                .when(eb.and([eb('active', '=', 1), eb('is_default', '=', 1)]))
                .then(1)
                .else(0)
                .end(),
            )
            .as('defaults'),
        ])
        .where('account_id', '=', p.accountId)
        .executeTakeFirstOrThrow();
      if (Number(counts.active ?? 0) >= ACTIVE_METHODS_MAX) {
        throw errors.reason(
          `An account can have at most ${ACTIVE_METHODS_MAX} active payment methods.`,
        );
      }
      if (Number(counts.today ?? 0) >= ADDED_PER_DAY_MAX) {
        throw errors.reason(
          `At most ${ADDED_PER_DAY_MAX} payment methods can be added in a day; try again later.`,
        );
      }
      const inserted = await tx.db
        .insertInto('payment_methods')
        .values({
          account_id: p.accountId,
          type: 'credit_card',
          card_type: checked.cardType,
          last_four: checked.lastFour,
          expiry_month: checked.month,
          expiry_year: checked.year,
          is_default: 0,
          active: 1,
          created: isoSeconds(nowMs),
          created_ms: nowMs,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      // The first method is the default whatever was asked: charges need one.
      if (isDefault || Number(counts.defaults ?? 0) === 0)
        await this.setDefault(tx, p.accountId, inserted.id);
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action,
        entity: entityRefs.account(account.euuid),
        status: 'notification',
        username: p.username,
      });
    });
  }

  private async setDefault(tx: Database, accountId: number, id: number): Promise<void> {
    await tx.db
      .updateTable('payment_methods')
      .set((eb) => ({
        is_default: eb.case().when('id', '=', id).then(fromBool(true)).else(fromBool(false)).end(),
      }))
      .where('account_id', '=', accountId)
      .where('active', '=', 1)
      .execute();
  }

  private async lockAccount(tx: Database, accountId: number) {
    const row = await tx
      .forUpdate(
        tx.db.selectFrom('accounts').select(['id', 'zip', 'euuid']).where('id', '=', accountId),
      )
      .executeTakeFirst();
    if (!row) throw errors.invalidToken();
    return row;
  }

  private async find(db: Database, p: Principal, id: number): Promise<Row> {
    const row = await db.db
      .selectFrom('payment_methods')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', p.accountId)
      .where('active', '=', 1)
      .executeTakeFirst();
    if (!row) throw errors.notFound();
    return row;
  }
}
