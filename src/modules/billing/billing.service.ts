import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { ApiError } from '../../errors/api-error.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import type { CompiledFilter } from '../../lib/filter.js';
import {
  type Page,
  type PageParams,
  type PaginateOptions,
  paginate,
} from '../../lib/pagination.js';
import type { EventWriter } from '../events/events.writer.js';
import type { BillableLine, FactOwner } from './facts.js';
import { closeFacts, openFact, syncFacts } from './facts.js';
import { monthBounds } from './months.js';
import type { Invoice, InvoiceItem, Payment, PaymentCreate } from './billing.schemas.js';
import type { InvoiceItemsTable, InvoicesTable, PaymentsTable } from './billing.table.js';
import { parseUsd, type Row, toInvoice, toInvoiceItem, toPayment } from './billing.views.js';
import { chargeAccount } from './charge.js';
import { accruedCents, writeInvoice } from './invoices.js';

/** Invoices and payments are not filterable (reference); they list newest first. */
const UNFILTERED: CompiledFilter = { where: undefined, orderBy: undefined };
const NEWEST_FIRST: PaginateOptions = { idColumn: ['date', 'id'], defaultDirection: 'desc' };

/** The survey `POST /account/cancel` answers with. */
export const SURVEY_LINK = 'https://www.example.com/survey/account-cancel';

/** Payment amounts (the reference's rules for `usd`), in cents. */
export const PAYMENT_MIN_CENTS = 500;
export const PAYMENT_MAX_CENTS = 200_000;
export const PAYMENT_BALANCE_MAX_CENTS = 5_000_000;

/**
 * The billing engine (`ctx.areas.billing.billing`): billable periods (`open`, `close`, `change`, `sync`),
 * the balance, invoices, payments and the account's cancellation.
 */
export class BillingService {
  constructor(private readonly d: { db: Database; clock: Clock; events: EventWriter }) {}

  // ---- facts (areas call billables.ts; these are the primitives it is built on) ----
  open(tx: Database, owner: FactOwner, line: BillableLine, atMs: number) {
    return openFact(tx, owner, line, atMs);
  }
  close(
    tx: Database,
    entity: { entityType: string; entityId: number; kind?: string },
    atMs: number,
  ) {
    return closeFacts(tx, entity, atMs);
  }
  /** Close + open: the entity's periods now match `lines` (a resize splits the period). */
  change(tx: Database, owner: FactOwner, lines: readonly BillableLine[], atMs: number) {
    return syncFacts(tx, owner, lines, atMs);
  }

  /** `balance_uninvoiced`: the current month's accrual up to now, in cents. */
  async uninvoicedCents(db: Database, accountId: number): Promise<number> {
    const now = this.d.clock.nowMs();
    return accruedCents(db, accountId, monthBounds(now).start, now);
  }

  // ---- invoices ----
  async invoices(p: Principal, params: PageParams): Promise<Page<Invoice>> {
    authz.requireAccountAccess(p, 'read_only');
    const source = await this.billingSource(p.accountId);
    return paginate(
      this.d.db.db.selectFrom('invoices').where('account_id', '=', p.accountId),
      (qb) => qb.selectAll(),
      UNFILTERED,
      params,
      NEWEST_FIRST,
      (r: Row<InvoicesTable>) => toInvoice(r, source),
    );
  }

  async invoice(p: Principal, id: number): Promise<Invoice> {
    authz.requireAccountAccess(p, 'read_only');
    return toInvoice(await this.findInvoice(p, id), await this.billingSource(p.accountId));
  }

  async invoiceItems(p: Principal, id: number, params: PageParams): Promise<Page<InvoiceItem>> {
    authz.requireAccountAccess(p, 'read_only');
    await this.findInvoice(p, id);
    return paginate(
      this.d.db.db.selectFrom('invoice_items').where('invoice_id', '=', id),
      (qb) => qb.selectAll(),
      UNFILTERED,
      params,
      { idColumn: 'id' },
      (r: Row<InvoiceItemsTable>) => toInvoiceItem(r),
    );
  }

  // ---- payments ----
  async payments(p: Principal, params: PageParams): Promise<Page<Payment>> {
    authz.requireAccountAccess(p, 'read_only');
    return paginate(
      this.d.db.db.selectFrom('payments').where('account_id', '=', p.accountId),
      (qb) => qb.selectAll(),
      UNFILTERED,
      params,
      NEWEST_FIRST,
      (r: Row<PaymentsTable>) => toPayment(r),
    );
  }

  async payment(p: Principal, id: number): Promise<Payment> {
    authz.requireAccountAccess(p, 'read_only');
    const r = await this.d.db.db
      .selectFrom('payments')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', p.accountId)
      .executeTakeFirst();
    if (!r) throw errors.notFound();
    return toPayment(r);
  }

  /**
   * `POST /account/payments`: charges the named card (or the default one) through the
   * processor simulator. Amount: at least $5.00 or the balance, whichever is lower (and more
   * than nothing); at most $2000.00 or the balance up to $50000.00, whichever is greater.
   * A declined or failed charge is a 400 that changes nothing.
   */
  async pay(p: Principal, body: PaymentCreate): Promise<Payment> {
    authz.requireAccountAccess(p, 'read_write');
    const fe = new FieldErrors();
    if (body.cvv !== undefined)
      fe.check(!/^\d{3,4}$/.test(body.cvv), 'cvv', 'CVV must be 3 or 4 digits.');
    fe.throwIfAny();
    const cents = parseUsd(body.usd);
    return this.d.db.transaction(async (tx) => {
      const account = await tx
        .forUpdate(
          tx.db.selectFrom('accounts').select('balance_cents').where('id', '=', p.accountId),
        )
        .executeTakeFirstOrThrow();
      const balance = Number(account.balance_cents);
      const min = Math.max(1, Math.min(PAYMENT_MIN_CENTS, balance));
      const max = Math.max(PAYMENT_MAX_CENTS, Math.min(balance, PAYMENT_BALANCE_MAX_CENTS));
      if (cents < min)
        throw errors.invalidField(
          'usd',
          `The payment must be at least $${(min / 100).toFixed(2)}.`,
        );
      if (cents > max)
        throw errors.invalidField('usd', `The payment must be at most $${(max / 100).toFixed(2)}.`);
      const res = await chargeAccount(tx, this.d.events, {
        accountId: p.accountId,
        cents,
        nowMs: this.d.clock.nowMs(),
        ...(body.payment_method_id !== undefined
          ? { paymentMethodId: body.payment_method_id }
          : {}),
        username: p.username,
      });
      if (!res.ok) throw errors.reason(res.reason, 'payment_declined');
      const row = await tx.db
        .selectFrom('payments')
        .selectAll()
        .where('id', '=', res.paymentId as number)
        .executeTakeFirstOrThrow();
      return toPayment(row);
    });
  }

  // ---- cancel ----
  /**
   * `POST /account/cancel`: unrestricted users only. Invoices what is not invoiced yet (the
   * month so far, and the last month if its invoice is not written yet), charges the whole
   * remaining balance on the default card, then closes every billable period and removes the
   * account's entities, users and tokens (`removeAll`, in the same transaction). A charge that
   * fails is a 409 and cancels nothing.
   */
  async cancel(
    p: Principal,
    removeAll: (tx: Database, accountId: number) => Promise<void>,
  ): Promise<{ survey_link: string }> {
    authz.requireUnrestricted(p);
    // The account's rows go: much of the database may change.
    await this.d.db.transactionAlone(async (tx) => {
      await tx
        .forUpdate(tx.db.selectFrom('accounts').select('id').where('id', '=', p.accountId))
        .executeTakeFirstOrThrow();
      const now = this.d.clock.nowMs();
      const { start } = monthBounds(now);
      const previous = monthBounds(start - 1).start;
      await writeInvoice(tx, p.accountId, previous, start, now);
      await writeInvoice(tx, p.accountId, start, now, now);
      const { balance_cents } = await tx.db
        .selectFrom('accounts')
        .select('balance_cents')
        .where('id', '=', p.accountId)
        .executeTakeFirstOrThrow();
      const owed = Number(balance_cents);
      if (owed > 0) {
        const res = await chargeAccount(tx, this.d.events, {
          accountId: p.accountId,
          cents: owed,
          nowMs: now,
          username: p.username,
        });
        if (!res.ok)
          throw new ApiError(
            409,
            [
              {
                reason: `We were unable to charge your credit card for services rendered (${res.reason}) We cannot cancel this account until the balance has been paid.`,
              },
            ],
            'payment_declined',
          );
      }
      await tx.db
        .updateTable('billing_facts')
        .set({ to_ms: now })
        .where('account_id', '=', p.accountId)
        .where('to_ms', 'is', null)
        .execute();
      await removeAll(tx, p.accountId);
    });
    return { survey_link: SURVEY_LINK };
  }

  private async findInvoice(p: Principal, id: number) {
    const r = await this.d.db.db
      .selectFrom('invoices')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', p.accountId)
      .executeTakeFirst();
    if (!r) throw errors.notFound();
    return r;
  }

  private async billingSource(accountId: number): Promise<string> {
    const r = await this.d.db.db
      .selectFrom('accounts')
      .select('billing_source')
      .where('id', '=', accountId)
      .executeTakeFirst();
    return r?.billing_source ?? 'compute';
  }
}
