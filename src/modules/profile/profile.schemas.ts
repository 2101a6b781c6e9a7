import { type Static, Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas/common.js';

export const ProfileSchema = Type.Object({
  uid: Type.Integer(),
  username: Type.String(),
  email: Type.String({ format: 'email' }),
  verified_phone_number: Nullable(Type.String()),
  timezone: Type.String(),
  email_notifications: Type.Boolean(),
  referrals: Type.Object({
    code: Type.String(),
    url: Type.String(),
    total: Type.Integer(),
    completed: Type.Integer(),
    pending: Type.Integer(),
    credit: Type.Integer(),
  }),
  ip_whitelist_enabled: Type.Boolean(),
  lish_auth_method: Type.String({ enum: ['password_keys', 'keys_only', 'disabled'] }),
  authorized_keys: Nullable(Type.Array(Type.String())),
  two_factor_auth: Type.Boolean(),
  restricted: Type.Boolean(),
  authentication_type: Type.String({ enum: ['password', 'github'] }),
  user_type: Type.String({ enum: ['default', 'parent', 'child', 'proxy'] }),
});

/**
 * PUT /profile: the writable Profile fields. `username` changes through PUT
 * /account/users/{username}; `restricted` is read-only for the user itself (ignored here).
 */
export const ProfileUpdateBody = Type.Object({
  email: Type.Optional(
    Type.String({ description: 'A valid email address, at most 128 characters.' }),
  ),
  timezone: Type.Optional(Type.String({ description: 'An IANA time zone name, e.g. US/Eastern.' })),
  email_notifications: Type.Optional(Type.Boolean()),
  lish_auth_method: Type.Optional(
    Type.String({ enum: ['password_keys', 'keys_only', 'disabled'] }),
  ),
  authorized_keys: Type.Optional(
    Nullable(Type.Array(Type.String(), { description: 'Public keys for Lish; null for none.' })),
  ),
  two_factor_auth: Type.Optional(
    Type.Boolean({
      description:
        'Reflects the sign-in two-factor state: only the current value is accepted here (turn it on with POST /profile/tfa-enable and tfa-enable-confirm, off with POST /profile/tfa-disable).',
    }),
  ),
});
export type ProfileUpdate = Static<typeof ProfileUpdateBody>;
