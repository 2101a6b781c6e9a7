import type { Database } from '../../db/database.js';

/** Concurrent clones allowed from one source instance (spec §8). */
export const MAX_CONCURRENT_CLONES = 5;

/** Clones under way from a source. */
export async function activeClones(db: Database, sourceId: number): Promise<number> {
  const rows = await db.db
    .selectFrom('instance_clones')
    .select('id')
    .where('source_id', '=', sourceId)
    .execute();
  return rows.length;
}

/**
 * The end of a clone (done or failed): the source leaves `cloning` for the status it had when
 * its last clone ends.
 */
export async function finishClone(
  db: Database,
  sourceId: number,
  targetId: number,
  nowIso: string,
): Promise<void> {
  await db.db
    .deleteFrom('instance_clones')
    .where('source_id', '=', sourceId)
    .where('target_id', '=', targetId)
    .execute();
  if ((await activeClones(db, sourceId)) > 0) return;
  const src = await db.db
    .selectFrom('instances')
    .select(['status', 'resume_status'])
    .where('id', '=', sourceId)
    .executeTakeFirst();
  if (src?.status !== 'cloning') return;
  await db.db
    .updateTable('instances')
    .set({ status: src.resume_status ?? 'offline', resume_status: null, updated: nowIso })
    .where('id', '=', sourceId)
    .execute();
}
