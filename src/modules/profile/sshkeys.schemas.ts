import { type Static, Type } from '@sinclair/typebox';
import { DateTime, IdParams, PageOf } from '../../http/schemas/common.js';

export const SshKeySchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  ssh_key: Type.String(),
  created: DateTime(),
});
export type SshKey = Static<typeof SshKeySchema>;
export const SshKeyPage = PageOf(SshKeySchema);

const LabelField = Type.String({ description: '0-64 characters.' });

export const SshKeyCreateBody = Type.Object({
  label: Type.Optional(LabelField),
  ssh_key: Type.String({
    description:
      '"<type> <base64> [comment]"; type ssh-dss, ssh-rsa, ecdsa-sha2-nistp256/384/521, ' +
      'ssh-ed25519, sk-ecdsa-sha2-nistp256@openssh.com or sk-ssh-ed25519@openssh.com.',
  }),
});
export type SshKeyCreate = Static<typeof SshKeyCreateBody>;

export const SshKeyUpdateBody = Type.Object({ label: Type.Optional(LabelField) });
export type SshKeyUpdate = Static<typeof SshKeyUpdateBody>;

export const SshKeyParams = IdParams('sshKeyId');
