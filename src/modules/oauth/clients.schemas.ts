import { type Static, Type } from '@sinclair/typebox';
import { Nullable, PageOf } from '../../http/schemas/common.js';

export const CLIENT_STATUSES = ['active', 'disabled', 'suspended'] as const;
/** What every read but create and reset-secret shows in place of the secret (reference). */
export const REDACTED = '<REDACTED>';

const Label = Type.String({ minLength: 1, maxLength: 512 });
// Checked by the service (an absolute http(s) URL; ajv's `url` format refuses localhost).
const RedirectUri = Type.String({ minLength: 1, maxLength: 2048 });

export const OAuthClientSchema = Type.Object({
  id: Type.String(),
  redirect_uri: Type.String({ format: 'url' }),
  label: Type.String(),
  status: Type.String({ enum: [...CLIENT_STATUSES] }),
  secret: Type.String(),
  /** Path-absolute (the server does not know the address clients reach it at). */
  thumbnail_url: Nullable(Type.String()),
  public: Type.Boolean(),
});
export type OAuthClient = Static<typeof OAuthClientSchema>;

export const OAuthClientCreateBody = Type.Object({
  label: Label,
  redirect_uri: RedirectUri,
  public: Type.Optional(Type.Boolean({ default: false })),
});
export type OAuthClientCreate = Static<typeof OAuthClientCreateBody>;

export const OAuthClientUpdateBody = Type.Object({
  label: Type.Optional(Label),
  redirect_uri: Type.Optional(RedirectUri),
  public: Type.Optional(Type.Boolean()),
});
export type OAuthClientUpdate = Static<typeof OAuthClientUpdateBody>;

export const ClientParams = Type.Object({ clientId: Type.String({ maxLength: 64 }) });
export const OAuthClientPage = PageOf(OAuthClientSchema);
