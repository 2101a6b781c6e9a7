import { defaultZero, type MigrationContext, notNull, withId } from './helpers.js';

/**
 * Support tickets: the ticket (on an entity or on none), its replies (the customer's and
 * support's), and its attachments (bytes in the `tickets` blob store, the key here).
 */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  await withId(db.schema.createTable('support_tickets'), dialect)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('summary', 'text', notNull)
    .addColumn('description', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('closable', 'integer', defaultZero)
    .addColumn('opened_by', 'text', notNull)
    // The user who opened it (restricted users see their own tickets); null: support opened it.
    .addColumn('opened_by_user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('gravatar_id', 'text', notNull)
    .addColumn('entity_type', 'text')
    .addColumn('entity_id', 'integer')
    .addColumn('entity_label', 'text')
    .addColumn('entity_url', 'text')
    .addColumn('managed_issue', 'integer', defaultZero)
    .addColumn('opened', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .addColumn('updated_by', 'text')
    .addColumn('closed', 'text')
    .execute();
  await db.schema
    .createIndex('support_tickets_account_idx')
    .on('support_tickets')
    .columns(['account_id', 'id'])
    .execute();

  await withId(db.schema.createTable('support_ticket_replies'), dialect)
    .addColumn('ticket_id', 'integer', (c) =>
      c.notNull().references('support_tickets.id').onDelete('cascade'),
    )
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('description', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('created_by', 'text', notNull)
    .addColumn('from_compute', 'integer', defaultZero)
    .addColumn('gravatar_id', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('support_ticket_replies_ticket_idx')
    .on('support_ticket_replies')
    .columns(['ticket_id', 'id'])
    .execute();

  await withId(db.schema.createTable('support_ticket_attachments'), dialect)
    .addColumn('ticket_id', 'integer', (c) =>
      c.notNull().references('support_tickets.id').onDelete('cascade'),
    )
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('filename', 'text', notNull)
    .addColumn('content_type', 'text', notNull)
    .addColumn('size', 'integer', notNull)
    .addColumn('blob_key', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('support_ticket_attachments_ticket_idx')
    .on('support_ticket_attachments')
    .columns(['ticket_id', 'id'])
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropTable('support_ticket_attachments').ifExists().execute();
  await db.schema.dropTable('support_ticket_replies').ifExists().execute();
  await db.schema.dropTable('support_tickets').ifExists().execute();
}
