import { type Static, Type } from '@sinclair/typebox';
import { DateTime, IdParams, Nullable, PageOf } from '../../http/schemas/common.js';

// ---- contacts ----

const Phone = Type.Object({
  primary: Type.Optional(Nullable(Type.String())),
  secondary: Type.Optional(Nullable(Type.String())),
});

export const ContactSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  email: Type.String(),
  phone: Type.Object({ primary: Nullable(Type.String()), secondary: Nullable(Type.String()) }),
  group: Nullable(Type.String()),
  updated: DateTime(),
});
export type ApiContact = Static<typeof ContactSchema>;
export const ContactPage = PageOf(ContactSchema);

export const CreateContactBody = Type.Object({
  name: Type.String({ description: '2 to 64 characters: letters, digits, spaces, "-", "_".' }),
  email: Type.String({ description: 'An email address, at most 128 characters.' }),
  phone: Type.Optional(Phone),
  group: Type.Optional(Nullable(Type.String({ description: '2 to 50 characters.' }))),
});
export type CreateContact = Static<typeof CreateContactBody>;

export const UpdateContactBody = Type.Partial(CreateContactBody);
export type UpdateContact = Static<typeof UpdateContactBody>;

export const ContactParams = IdParams('contactId');

// ---- credentials ----

export const CredentialSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  last_decrypted: Nullable(DateTime({ description: 'null until support first opens it' })),
});
export type ApiCredential = Static<typeof CredentialSchema>;
export const CredentialPage = PageOf(CredentialSchema);

const CREDENTIAL_LABEL = '2 to 75 characters: letters, digits, spaces, ".", "-", "_"; unique.';

export const CreateCredentialBody = Type.Object({
  label: Type.String({ description: CREDENTIAL_LABEL }),
  username: Type.Optional(Nullable(Type.String({ description: 'At most 5000 characters.' }))),
  password: Type.String({ description: 'Stored sealed; never shown again.' }),
});
export type CreateCredential = Static<typeof CreateCredentialBody>;

export const UpdateCredentialBody = Type.Object({
  label: Type.Optional(Type.String({ description: CREDENTIAL_LABEL })),
});

export const CredentialSecretBody = Type.Object({
  username: Type.Optional(Nullable(Type.String({ description: 'At most 5000 characters.' }))),
  password: Type.String(),
});
export type CredentialSecret = Static<typeof CredentialSecretBody>;

export const CredentialParams = IdParams('credentialId');

export const SshKeySchema = Type.Object({ ssh_key: Type.String() });

// ---- services ----

export const ServiceSchema = Type.Object({
  id: Type.Integer(),
  status: Type.String({ enum: ['disabled', 'pending', 'ok', 'problem'] }),
  service_type: Type.String({ enum: ['url', 'tcp'] }),
  label: Type.String(),
  address: Type.String(),
  timeout: Type.Integer(),
  body: Nullable(Type.String()),
  consultation_group: Type.String(),
  notes: Nullable(Type.String()),
  region: Nullable(Type.String()),
  credentials: Type.Array(Type.Integer()),
  created: DateTime(),
  updated: DateTime(),
});
export type ApiService = Static<typeof ServiceSchema>;
export const ServicePage = PageOf(ServiceSchema);

const serviceFields = {
  service_type: Type.String({ enum: ['url', 'tcp'] }),
  label: Type.String({
    description: '3 to 64 characters: letters, digits, spaces, ".", "-", "_".',
  }),
  address: Type.String({
    description:
      'url: an http(s) URL (its #fragment is dropped); tcp: host:port. 3 to 100 characters.',
  }),
  timeout: Type.Integer({ description: 'Seconds, 1 to 255.' }),
  body: Type.Optional(Nullable(Type.String({ description: 'At most 100 characters.' }))),
  consultation_group: Type.Optional(Type.String({ description: 'At most 50 characters.' })),
  notes: Type.Optional(Nullable(Type.String())),
  region: Type.Optional(
    Nullable(Type.String({ description: 'Required for a private IP address, refused otherwise.' })),
  ),
  credentials: Type.Optional(Type.Array(Type.Integer())),
};

export const CreateServiceBody = Type.Object(serviceFields);
export type CreateService = Static<typeof CreateServiceBody>;
export const UpdateServiceBody = Type.Partial(Type.Object(serviceFields));
export type UpdateService = Static<typeof UpdateServiceBody>;

export const ServiceParams = IdParams('serviceId');

// ---- issues ----

export const IssueSchema = Type.Object({
  id: Type.Integer(),
  created: DateTime(),
  services: Type.Array(Type.Integer()),
  entity: Type.Object({
    id: Type.Integer(),
    type: Type.String({ enum: ['ticket'] }),
    label: Type.String(),
    url: Type.String(),
  }),
});
export type ApiIssue = Static<typeof IssueSchema>;
export const IssuePage = PageOf(IssueSchema);
export const IssueParams = IdParams('issueId');

// ---- per-instance settings ----

export const ComputeSettingsSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  group: Type.String(),
  ssh: Type.Object({
    access: Type.Boolean(),
    user: Nullable(Type.String()),
    ip: Type.String(),
    port: Nullable(Type.Integer()),
  }),
});
export type ApiComputeSettings = Static<typeof ComputeSettingsSchema>;
export const ComputeSettingsPage = PageOf(ComputeSettingsSchema);

export const UpdateComputeSettingsBody = Type.Object({
  ssh: Type.Optional(
    Type.Object({
      access: Type.Optional(Type.Boolean()),
      user: Type.Optional(
        Nullable(Type.String({ description: 'At most 32 characters; null: root.' })),
      ),
      ip: Type.Optional(
        Type.String({ description: '"any", or one of the instance\'s addresses.' }),
      ),
      port: Type.Optional(Nullable(Type.Integer({ description: '1 to 65535; null: 22.' }))),
    }),
  ),
});
export type UpdateComputeSettings = Static<typeof UpdateComputeSettingsBody>;

export const ComputeParams = IdParams('computeId');

// ---- stats ----

const Point = Type.Object({ x: Type.Integer(), y: Type.Number() });
export const StatsAvailable = Type.Object({
  cpu: Type.Array(Point),
  disk: Type.Array(Point),
  swap: Type.Array(Point),
  net_in: Type.Array(Point),
  net_out: Type.Array(Point),
});
export type ManagedStats = Static<typeof StatsAvailable>;

export const StatsSchema = Type.Object({
  data: Type.Union([StatsAvailable, Type.Array(Type.String())]),
});

// ---- emulator controls ----

export const EuuidBody = Type.Object({ euuid: Type.String() });
export const RevealedCredential = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  username: Nullable(Type.String()),
  password: Type.String(),
  last_decrypted: DateTime(),
});
