import { type Static, Type } from '@sinclair/typebox';
import { DateTime, IdParams, Nullable, PageOf } from '../../http/schemas/common.js';

export const TokenSchema = Type.Object({
  id: Type.Integer(),
  scopes: Type.String(),
  created: DateTime(),
  label: Type.String(),
  token: Type.String({
    description: 'The full token in the create response only; otherwise its first 16 characters.',
  }),
  expiry: Nullable(DateTime()),
});
export type Token = Static<typeof TokenSchema>;
export const TokenPage = PageOf(TokenSchema);

const LabelField = Type.String({ description: '1-100 characters.' });

export const TokenCreateBody = Type.Object({
  scopes: Type.Optional(
    Type.String({
      description:
        '"*" or space-separated `<area>:read_only|read_write`; at most the scopes of the token ' +
        'making the request. Omitted or "*": the same scopes as that token.',
    }),
  ),
  expiry: Type.Optional(
    Nullable(
      Type.String({
        description:
          "A future date-time, at most the calling token's expiry; null or omitted: the calling token's expiry (never, for a token without one).",
      }),
    ),
  ),
  label: Type.Optional(LabelField),
});
export type TokenCreate = Static<typeof TokenCreateBody>;

export const TokenUpdateBody = Type.Object({ label: Type.Optional(LabelField) });
export type TokenUpdate = Static<typeof TokenUpdateBody>;

export const TokenParams = IdParams('tokenId');
