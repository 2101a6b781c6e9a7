import type { MigrationContext } from './helpers.js';

/**
 * Disk events name the disk `disk`, as the real wire shows (migration 0007 had followed the
 * reference's `disks`). Both columns (entity and secondary entity) are renamed.
 */
async function rename({ db }: MigrationContext, from: string, to: string): Promise<void> {
  for (const column of ['entity_type', 'secondary_entity_type'] as const) {
    await db
      .updateTable('events' as never)
      .set({ [column]: to } as never)
      .where(column as never, '=', from as never)
      .execute();
  }
}

export async function up(ctx: MigrationContext): Promise<void> {
  await rename(ctx, 'disks', 'disk');
}

export async function down(ctx: MigrationContext): Promise<void> {
  await rename(ctx, 'disk', 'disks');
}
