import { type Static, Type } from '@sinclair/typebox';
import { DateTime, IdParams, Nullable, PageOf } from '../../http/schemas/common.js';

export const TicketEntitySchema = Type.Object({
  id: Nullable(Type.Integer({ description: 'null only for a VLAN (named by its label)' })),
  label: Type.String(),
  type: Type.String(),
  url: Type.String(),
});
export type TicketEntity = Static<typeof TicketEntitySchema>;

export const TicketSchema = Type.Object({
  id: Type.Integer(),
  attachments: Type.Array(Type.String(), {
    description: 'The file names of the attachments, oldest first.',
  }),
  closed: Nullable(DateTime()),
  closable: Type.Boolean(),
  description: Type.String(),
  entity: Nullable(TicketEntitySchema),
  gravatar_id: Type.String(),
  opened: DateTime(),
  opened_by: Type.String(),
  status: Type.String({ enum: ['closed', 'new', 'open'] }),
  summary: Type.String(),
  updated: DateTime(),
  updated_by: Nullable(Type.String()),
});
export type ApiTicket = Static<typeof TicketSchema>;
export const TicketPage = PageOf(TicketSchema);

/** Optional fields of a new ticket take `null` too: not given (what SDKs send for unset ones). */
const entityId = (what: string) =>
  Type.Optional(Nullable(Type.Integer({ description: `The ${what} this ticket is about.` })));

export const CreateTicketBody = Type.Object({
  summary: Type.String({ description: '1 to 64 characters.' }),
  description: Type.String({ description: '1 to 65000 characters.' }),
  compute_id: entityId('compute instance'),
  database_id: entityId('managed database'),
  domain_id: entityId('domain'),
  firewall_id: entityId('firewall'),
  lkecluster_id: entityId('Kubernetes cluster'),
  longviewclient_id: entityId('Longview client'),
  nodebalancer_id: entityId('NodeBalancer'),
  volume_id: entityId('volume'),
  vpc_id: entityId('VPC'),
  vlan: Type.Optional(Nullable(Type.String({ description: "A VLAN's label; needs `region`." }))),
  region: Type.Optional(Nullable(Type.String({ description: 'Only with `vlan`: its region.' }))),
  managed_issue: Type.Optional(
    Nullable(
      Type.Boolean({ description: 'About Managed: no entity, and Managed must be enabled.' }),
    ),
  ),
});
export type CreateTicket = Static<typeof CreateTicketBody>;

export const ReplySchema = Type.Object({
  id: Type.Integer(),
  created: DateTime(),
  created_by: Type.String(),
  description: Type.String(),
  from_compute: Type.Boolean(),
  gravatar_id: Type.String(),
});
export type ApiReply = Static<typeof ReplySchema>;
export const ReplyPage = PageOf(ReplySchema);

export const ReplyBody = Type.Object({
  description: Type.String({ description: '1 to 65535 characters.' }),
});

export const TicketParams = IdParams('ticketId');

/** The multipart body of an attachment upload, as the OpenAPI document shows it. */
export const AttachmentBody = Type.Object({
  file: Type.String({
    format: 'binary',
    description:
      'The file: .gif, .jpg, .jpeg, .pjpg, .pjpeg, .tif, .tiff, .png, .pdf or .txt, at most 5 MiB.',
  }),
});

// ---- emulator controls: support's side ----

export const SupportReplyBody = Type.Object({
  description: Type.String({ minLength: 1, maxLength: 65535 }),
  /** Who signs the reply (default `Compute`). */
  created_by: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
});

export const SupportTicketBody = Type.Object({
  euuid: Type.String(),
  summary: Type.String({ minLength: 1, maxLength: 64 }),
  description: Type.String({ minLength: 1, maxLength: 65000 }),
});
