import type { MigrationContext } from './helpers.js';

/**
 * Events written before the entity types followed the reference's enum: `ssh_key` is
 * `user_ssh_key`, `disk` is `disks`. Both columns (entity and secondary entity) are renamed.
 */
const RENAMES: [from: string, to: string][] = [
  ['ssh_key', 'user_ssh_key'],
  ['disk', 'disks'],
];

async function rename({ db }: MigrationContext, pairs: [string, string][]): Promise<void> {
  for (const [from, to] of pairs) {
    for (const column of ['entity_type', 'secondary_entity_type'] as const) {
      await db
        .updateTable('events' as never)
        .set({ [column]: to } as never)
        .where(column as never, '=', from as never)
        .execute();
    }
  }
}

export async function up(ctx: MigrationContext): Promise<void> {
  await rename(ctx, RENAMES);
}

export async function down(ctx: MigrationContext): Promise<void> {
  await rename(
    ctx,
    RENAMES.map(([from, to]) => [to, from]),
  );
}
