import { createHash } from 'node:crypto';
import type { Database } from '../../db/database.js';
import { toBool } from '../../db/database.js';
import type { EntityRegistry } from '../../entities/entities.js';
import type { FilterSpec } from '../../lib/filter.js';
import type { ApiReply, ApiTicket, TicketEntity } from './support.schemas.js';
import type { SupportTicketRepliesTable, SupportTicketsTable } from './support.table.js';

export type TicketRow = Omit<SupportTicketsTable, 'id'> & { id: number };
export type ReplyRow = Omit<SupportTicketRepliesTable, 'id'> & { id: number };

/** Who support is, as tickets and replies show it. */
export const SUPPORT_NAME = 'Compute';
const SUPPORT_EMAIL = 'support@compute.invalid';

/** The reference's filterable fields of a ticket. */
export const TICKET_FILTERS: FilterSpec = {
  opened: { kind: 'datetime', column: 'support_tickets.opened' },
  closed: { kind: 'datetime', column: 'support_tickets.closed' },
  updated: { kind: 'datetime', column: 'support_tickets.updated' },
};

/** Gravatar's id of an address: the MD5 of the trimmed, lower-cased email. */
export function gravatarId(email: string): string {
  return createHash('md5').update(email.trim().toLowerCase()).digest('hex');
}

export const SUPPORT_GRAVATAR = gravatarId(SUPPORT_EMAIL);

export async function findTicket(
  db: Database,
  accountId: number,
  id: number,
  lock = false,
): Promise<TicketRow | undefined> {
  const q = db.db
    .selectFrom('support_tickets')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id);
  return (lock ? await db.forUpdate(q).executeTakeFirst() : await q.executeTakeFirst()) as
    | TicketRow
    | undefined;
}

/**
 * The entity a ticket names, with its current label (the registry's list of that type in the
 * account); the label stored at opening when the entity is gone.
 */
async function currentLabels(
  db: Database,
  entities: EntityRegistry,
  accountId: number,
  rows: readonly TicketRow[],
): Promise<Map<string, Map<number, string>>> {
  const out = new Map<string, Map<number, string>>();
  const types = new Set(rows.map((r) => r.entity_type).filter((t): t is string => t !== null));
  for (const type of types) {
    const decl = entities.get(type);
    if (!decl) continue;
    const list = await decl.list(db, accountId);
    out.set(type, new Map(list.map((e) => [e.id, e.label])));
  }
  return out;
}

/** The API objects of tickets of one account, with their attachments' names. */
export async function toApiTickets(
  db: Database,
  entities: EntityRegistry,
  accountId: number,
  rows: readonly TicketRow[],
): Promise<ApiTicket[]> {
  if (rows.length === 0) return [];
  const files = await db.db
    .selectFrom('support_ticket_attachments')
    .select(['ticket_id', 'filename'])
    .where(
      'ticket_id',
      'in',
      rows.map((r) => r.id),
    )
    .orderBy('id')
    .execute();
  const byTicket = new Map<number, string[]>();
  for (const f of files) {
    const list = byTicket.get(f.ticket_id) ?? [];
    list.push(f.filename);
    byTicket.set(f.ticket_id, list);
  }
  const labels = await currentLabels(db, entities, accountId, rows);
  return rows.map((r) => {
    let entity: TicketEntity | null = null;
    if (r.entity_type !== null) {
      const label =
        (r.entity_id !== null ? labels.get(r.entity_type)?.get(r.entity_id) : undefined) ??
        r.entity_label ??
        '';
      entity = { id: r.entity_id, label, type: r.entity_type, url: r.entity_url ?? '' };
    }
    return {
      id: r.id,
      attachments: byTicket.get(r.id) ?? [],
      closed: r.closed,
      closable: toBool(r.closable) && r.status !== 'closed',
      description: r.description,
      entity,
      gravatar_id: r.gravatar_id,
      opened: r.opened,
      opened_by: r.opened_by,
      status: r.status,
      summary: r.summary,
      updated: r.updated,
      updated_by: r.updated_by,
    };
  });
}

export function toApiReply(r: ReplyRow): ApiReply {
  return {
    id: r.id,
    created: r.created,
    created_by: r.created_by,
    description: r.description,
    from_compute: toBool(r.from_compute),
    gravatar_id: r.gravatar_id,
  };
}
