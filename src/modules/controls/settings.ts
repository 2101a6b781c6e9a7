import type { Database } from '../../db/database.js';

/** A new version: random, so that a value names one setting (like the events feed's). */
const newVersion = () => 1 + Math.floor(Math.random() * (Number.MAX_SAFE_INTEGER - 1));

export type SettingKey = 'clock' | 'timing' | 'faults' | 'operator_token';

export interface StoredSetting {
  value: string;
  version: number;
}

export async function readSettings(db: Database): Promise<Map<string, StoredSetting>> {
  const rows = await db.db.selectFrom('emulator_settings').selectAll().execute();
  return new Map(rows.map((r) => [r.key, { value: r.value, version: Number(r.version) }]));
}

export async function readSetting(db: Database, key: SettingKey): Promise<string | undefined> {
  const row = await db.db
    .selectFrom('emulator_settings')
    .select('value')
    .where('key', '=', key)
    .executeTakeFirst();
  return row?.value;
}

/** Stores a setting for every process; returns its new version. */
export async function writeSetting(db: Database, key: SettingKey, value: string): Promise<number> {
  const version = newVersion();
  await db.db
    .insertInto('emulator_settings')
    .values({ key, value, version })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value, version }))
    .execute();
  return version;
}

/** Stores a setting only if none exists (first start); returns whether it was stored. */
export async function insertSettingOnce(
  db: Database,
  key: SettingKey,
  value: string,
): Promise<boolean> {
  const res = await db.db
    .insertInto('emulator_settings')
    .values({ key, value, version: newVersion() })
    .onConflict((oc) => oc.column('key').doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
}
