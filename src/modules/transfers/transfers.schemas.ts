import { type Static, Type } from '@sinclair/typebox';
import { DateTime, PageOf } from '../../http/schemas/common.js';

export const TRANSFER_STATUSES = [
  'accepted',
  'canceled',
  'completed',
  'failed',
  'pending',
  'stale',
] as const;

const Entities = Type.Object({
  computes: Type.Array(Type.Integer(), { description: 'Compute instance ids.' }),
});

/** A service transfer (the deprecated entity transfers have the identical shape). */
export const TransferSchema = Type.Object({
  token: Type.String({ format: 'uuid' }),
  status: Type.String({ enum: [...TRANSFER_STATUSES] }),
  created: DateTime(),
  updated: DateTime(),
  is_sender: Type.Boolean(),
  expiry: DateTime(),
  entities: Entities,
});
export type ApiTransfer = Static<typeof TransferSchema>;
export const TransferPage = PageOf(TransferSchema);

export const CreateTransferBody = Type.Object({
  entities: Type.Object({
    computes: Type.Optional(Type.Array(Type.Integer(), { description: 'Compute instance ids.' })),
  }),
});
export type CreateTransfer = Static<typeof CreateTransferBody>;

export const TokenParams = Type.Object({ token: Type.String({ format: 'uuid' }) });
