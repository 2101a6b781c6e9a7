import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Nullable, PageOf } from '../../http/schemas/common.js';

export const UserSchema = Type.Object({
  username: Type.String(),
  email: Type.String(),
  restricted: Type.Boolean(),
  ssh_keys: Type.Array(Type.String(), { description: 'Labels of the SSH keys this user added.' }),
  tfa_enabled: Type.Boolean(),
  verified_phone_number: Nullable(Type.String()),
  password_created: Nullable(DateTime()),
  user_type: Type.String({ enum: ['default', 'parent', 'child', 'proxy'] }),
  last_login: Nullable(
    Type.Object({
      login_datetime: DateTime(),
      status: Type.String({ enum: ['successful', 'failed'] }),
    }),
  ),
});
export type User = Static<typeof UserSchema>;
export const UserPage = PageOf(UserSchema);

const USERNAME_RULE =
  '3-32 characters: letters, digits, "-" and "_", beginning and ending with a letter or digit, ' +
  'without two dashes or underscores in a row. Unique across Stratus.';

export const UserCreateBody = Type.Object({
  username: Type.String({ description: USERNAME_RULE }),
  email: Type.String({ description: 'A valid email address, at most 128 characters.' }),
  restricted: Type.Optional(
    Type.Boolean({ description: 'Default false. A restricted user starts without grants.' }),
  ),
});
export type UserCreate = Static<typeof UserCreateBody>;

export const UserUpdateBody = Type.Object({
  username: Type.Optional(Type.String({ description: USERNAME_RULE })),
  email: Type.Optional(Type.String()),
  restricted: Type.Optional(Type.Boolean()),
});
export type UserUpdate = Static<typeof UserUpdateBody>;

export const UsernameParams = Type.Object({ username: Type.String() });
