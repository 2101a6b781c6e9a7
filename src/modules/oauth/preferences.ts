import { Type } from '@sinclair/typebox';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors } from '../../errors/errors.js';

/** Largest stored preferences, as JSON text (reference: maxLength 65535). */
export const PREFERENCES_MAX = 65535;

/** Any JSON object (its keys are kept whatever they are). */
export const PreferencesSchema = Type.Record(Type.String(), Type.Unknown());
export type Preferences = Record<string, unknown>;

/** `/profile/preferences`: an object the caller's applications keep for the user. */
export class PreferencesService {
  constructor(private readonly db: Database) {}

  async get(p: Principal): Promise<Preferences> {
    const row = await this.db.db
      .selectFrom('user_preferences')
      .select('preferences')
      .where('user_id', '=', p.userId)
      .executeTakeFirst();
    return row ? (JSON.parse(row.preferences) as Preferences) : {};
  }

  /** Replaces the whole object. */
  async update(p: Principal, body: unknown): Promise<Preferences> {
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      throw errors.reason('Preferences must be a JSON object');
    const text = JSON.stringify(body);
    if (text.length > PREFERENCES_MAX)
      throw errors.reason(`Preferences must be at most ${PREFERENCES_MAX} characters of JSON`);
    await this.db.db
      .insertInto('user_preferences')
      .values({ user_id: p.userId, preferences: text })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ preferences: text }))
      .execute();
    return body as Preferences;
  }
}
