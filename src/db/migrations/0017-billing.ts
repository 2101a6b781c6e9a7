import { sql } from 'kysely';
import { bigint, type MigrationContext, notNull, withId } from './helpers.js';

/**
 * The billing engine: billable periods (facts), monthly invoices and their items, payments.
 * Money is integer cents; unit prices are integer micro-dollars (hourly prices are fractions of
 * a cent). Invoices are unique per (account, period): the invoicing job writes each month once.
 */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  const big = bigint(dialect);
  await withId(db.schema.createTable('billing_facts'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('kind', 'text', notNull)
    .addColumn('entity_type', 'text', notNull)
    .addColumn('entity_id', 'integer', notNull)
    .addColumn('ref', 'text', notNull)
    .addColumn('label', 'text', notNull)
    .addColumn('region', 'text')
    .addColumn('quantity', 'integer', notNull)
    .addColumn('hourly_micros', big, notNull)
    .addColumn('monthly_micros', big, notNull)
    .addColumn('from_ms', big, notNull)
    .addColumn('to_ms', big)
    .execute();
  await db.schema
    .createIndex('billing_facts_entity_idx')
    .on('billing_facts')
    .columns(['entity_type', 'entity_id', 'to_ms'])
    .execute();
  await db.schema
    .createIndex('billing_facts_account_idx')
    .on('billing_facts')
    .columns(['account_id', 'from_ms'])
    .execute();

  await withId(db.schema.createTable('invoices'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('period', 'text', notNull)
    .addColumn('date', 'text', notNull)
    .addColumn('label', 'text', notNull)
    .addColumn('subtotal_cents', big, notNull)
    .addColumn('tax_cents', big, notNull)
    .addColumn('total_cents', big, notNull)
    .addColumn('tax_summary', 'text', notNull)
    .addUniqueConstraint('invoices_account_period_uq', ['account_id', 'period'])
    .execute();

  await withId(db.schema.createTable('invoice_items'), dialect)
    .addColumn('invoice_id', 'integer', (c) =>
      c.notNull().references('invoices.id').onDelete('cascade'),
    )
    .addColumn('label', 'text', notNull)
    .addColumn('from', 'text', notNull)
    .addColumn('to', 'text', notNull)
    .addColumn('quantity', 'integer', notNull)
    .addColumn('unit_price', 'text', notNull)
    .addColumn('amount_cents', big, notNull)
    .addColumn('tax_cents', big, notNull)
    .addColumn('region', 'text')
    .addColumn('type', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('invoice_items_invoice_idx')
    .on('invoice_items')
    .columns(['invoice_id', 'id'])
    .execute();

  await withId(db.schema.createTable('payments'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('date', 'text', notNull)
    .addColumn('usd_cents', big, notNull)
    .addColumn('payment_method_id', 'integer')
    .addColumn('invoice_id', 'integer')
    .execute();
  await db.schema
    .createIndex('payments_account_idx')
    .on('payments')
    .columns(['account_id', 'id'])
    .execute();
  // One standing invoicing schedule at most: transactions that open the first billing periods
  // at once (several API processes, PostgreSQL) cannot queue two.
  await sql`create unique index jobs_one_invoicing_schedule on jobs (name) where name = 'billing.invoicing' and status in ('queued', 'running')`.execute(
    db,
  );
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropIndex('jobs_one_invoicing_schedule').ifExists().execute();
  for (const t of ['payments', 'invoice_items', 'invoices', 'billing_facts'])
    await db.schema.dropTable(t).ifExists().execute();
}
