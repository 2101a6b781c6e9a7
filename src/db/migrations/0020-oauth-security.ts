import { type MigrationContext, notNull } from './helpers.js';

/** Security question answers (`/profile/security-questions`): one row per answered question. */
export async function up({ db }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('security_answers')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('question_id', 'integer', notNull)
    .addColumn('response_hash', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .addPrimaryKeyConstraint('security_answers_pk', ['user_id', 'question_id'])
    .execute();
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropTable('security_answers').ifExists().execute();
}
