import type { ColumnDefinitionBuilder, CreateTableBuilder, Kysely } from 'kysely';
import type { Dialect } from '../../config/config.js';

export interface MigrationContext {
  db: Kysely<unknown>;
  dialect: Dialect;
}

export interface StratusMigration {
  up(ctx: MigrationContext): Promise<void>;
  down(ctx: MigrationContext): Promise<void>;
}

/** An auto-incrementing integer primary key on both engines. */
export function withId<T extends string>(
  t: CreateTableBuilder<T, never>,
  dialect: Dialect,
): CreateTableBuilder<T, 'id'> {
  return dialect === 'postgres'
    ? t.addColumn('id', 'serial', (c) => c.primaryKey())
    : t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

/** Epoch milliseconds need 64 bits on PostgreSQL. */
export const bigint = (dialect: Dialect) => (dialect === 'postgres' ? 'bigint' : 'integer');

export const notNull = (c: ColumnDefinitionBuilder) => c.notNull();
export const defaultZero = (c: ColumnDefinitionBuilder) => c.notNull().defaultTo(0);
