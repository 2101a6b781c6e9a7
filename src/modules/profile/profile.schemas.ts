import { Type } from '@sinclair/typebox';
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
    credit: Type.Number(),
  }),
  ip_whitelist_enabled: Type.Boolean(),
  lish_auth_method: Type.String({ enum: ['password_keys', 'keys_only', 'disabled'] }),
  authorized_keys: Nullable(Type.Array(Type.String())),
  two_factor_auth: Type.Boolean(),
  restricted: Type.Boolean(),
  authentication_type: Type.String({ enum: ['password', 'github'] }),
});
