import type { Static } from '@sinclair/typebox';
import type { Principal } from '../../auth/principal.js';
import { principalChanged } from '../../auth/principal-cache.js';
import type { Database } from '../../db/database.js';
import { fromBool, parseJson, toBool } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import { entityRefs } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import { emailProblem } from '../identity/identity.rules.js';
import type { UsersTable } from '../identity/identity.table.js';
import type { ProfileSchema, ProfileUpdate } from './profile.schemas.js';
import { formatPublicKey, parsePublicKey } from './ssh-keys.js';

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
    user_type: 'default',
  };
}

/** Whether the runtime knows the time zone (IANA names and their aliases such as US/Eastern). */
export function isTimeZone(tz: string): boolean {
  if (tz === '' || tz.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The acting user's own profile. */
export class ProfileService {
  constructor(
    private readonly db: Database,
    private readonly events: EventWriter,
  ) {}

  private async row(db: Database, p: Principal) {
    const u = await db.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', p.userId)
      .executeTakeFirst();
    if (!u) throw errors.invalidToken();
    return u;
  }

  /** From the user's row read with the token (kept exact by the principal cache), if any. */
  async get(p: Principal): Promise<Profile> {
    return toProfile(p.user ?? (await this.row(this.db, p)));
  }

  /**
   * PUT /profile: the writable fields, checked all at once; event `profile_update`.
   * `two_factor_auth` is read-only here (see the note below).
   */
  async update(p: Principal, body: ProfileUpdate): Promise<Profile> {
    const fe = new FieldErrors();
    if (body.email !== undefined) {
      const problem = emailProblem(body.email);
      if (problem) fe.add('email', problem);
    }
    if (body.timezone !== undefined && !isTimeZone(body.timezone))
      fe.add('timezone', 'timezone must be a valid time zone such as US/Eastern or Europe/Berlin');
    let keys: string[] | null | undefined = body.authorized_keys;
    if (body.authorized_keys) {
      keys = body.authorized_keys.map((k, i) => {
        const parsed = parsePublicKey(k);
        if ('problem' in parsed) {
          fe.add(`authorized_keys.${i}`, parsed.problem);
          return k;
        }
        return formatPublicKey(parsed);
      });
    }
    fe.throwIfAny();
    return this.db.transaction(async (tx) => {
      const u = await this.row(tx, p);
      // @NOTE One source of truth: the flag mirrors the sign-in's TOTP state, which only the
      // tfa-enable/confirm/disable operations change. Sending back the current value (a client
      // that PUTs the profile it read) is accepted; asking for the other one is refused.
      if (body.two_factor_auth !== undefined && body.two_factor_auth !== toBool(u.two_factor_auth))
        throw errors.invalidField(
          'two_factor_auth',
          body.two_factor_auth
            ? 'Enable two-factor authentication with POST /profile/tfa-enable, then POST /profile/tfa-enable-confirm'
            : 'Disable two-factor authentication with POST /profile/tfa-disable',
        );
      const set = {
        ...(body.email !== undefined ? { email: body.email } : {}),
        ...(body.timezone !== undefined ? { timezone: body.timezone } : {}),
        ...(body.email_notifications !== undefined
          ? { email_notifications: fromBool(body.email_notifications) }
          : {}),
        ...(body.lish_auth_method !== undefined ? { lish_auth_method: body.lish_auth_method } : {}),
        ...(keys !== undefined
          ? { authorized_keys: keys === null ? null : JSON.stringify(keys) }
          : {}),
      };
      if (Object.keys(set).length > 0)
        await tx.db.updateTable('users').set(set).where('id', '=', u.id).execute();
      await principalChanged(tx, { kind: 'user', id: u.id });
      await this.events.record(tx, {
        accountId: p.accountId,
        action: 'profile_update',
        entity: entityRefs.user(u.id, u.username),
        status: 'notification',
        username: p.username,
      });
      return toProfile(await this.row(tx, p));
    });
  }
}
