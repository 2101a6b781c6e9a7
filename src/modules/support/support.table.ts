import type { Generated } from 'kysely';

export type TicketStatus = 'new' | 'open' | 'closed';

export interface SupportTicketsTable {
  id: Generated<number>;
  account_id: number;
  summary: string;
  description: string;
  status: TicketStatus;
  closable: number;
  /** The username shown (`Compute` when support opened it). */
  opened_by: string;
  /** The user who opened it; null when support did (or the user was deleted). */
  opened_by_user_id: number | null;
  gravatar_id: string;
  entity_type: string | null;
  entity_id: number | null;
  entity_label: string | null;
  entity_url: string | null;
  managed_issue: number;
  opened: string;
  updated: string;
  updated_by: string | null;
  closed: string | null;
}

export interface SupportTicketRepliesTable {
  id: Generated<number>;
  ticket_id: number;
  account_id: number;
  description: string;
  created: string;
  created_by: string;
  from_compute: number;
  gravatar_id: string;
}

export interface SupportTicketAttachmentsTable {
  id: Generated<number>;
  ticket_id: number;
  account_id: number;
  filename: string;
  content_type: string;
  size: number;
  /** The key of the bytes in the `tickets` blob store. */
  blob_key: string;
  created: string;
}

export interface SupportTables {
  support_tickets: SupportTicketsTable;
  support_ticket_replies: SupportTicketRepliesTable;
  support_ticket_attachments: SupportTicketAttachmentsTable;
}
