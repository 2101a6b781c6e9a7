import type { Static } from '@sinclair/typebox';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { parseJson, toBool } from '../../db/database.js';
import { errors } from '../../errors/errors.js';
import type { UsersTable } from '../identity/identity.table.js';
import type { ProfileSchema } from './profile.schemas.js';

export type Profile = Static<typeof ProfileSchema>;

export function toProfile(u: Omit<UsersTable, 'id'> & { id: number }): Profile {
  const code = `stratus${u.id.toString(36)}`;
  return {
    uid: u.id,
    username: u.username,
    email: u.email,
    verified_phone_number: u.verified_phone_number,
    timezone: u.timezone,
    email_notifications: toBool(u.email_notifications),
    referrals: {
      code,
      url: `https://stratus.local/?r=${code}`,
      total: 0,
      completed: 0,
      pending: 0,
      credit: 0,
    },
    ip_whitelist_enabled: false,
    lish_auth_method: u.lish_auth_method as Profile['lish_auth_method'],
    authorized_keys: parseJson<string[] | null>(u.authorized_keys, null),
    two_factor_auth: toBool(u.two_factor_auth),
    restricted: toBool(u.restricted),
    authentication_type: 'password',
  };
}

/** The acting user's own profile. */
export class ProfileService {
  constructor(private readonly db: Database) {}

  async get(p: Principal): Promise<Profile> {
    const u = await this.db.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', p.userId)
      .executeTakeFirst();
    if (!u) throw errors.invalidToken();
    return toProfile(u);
  }
}
