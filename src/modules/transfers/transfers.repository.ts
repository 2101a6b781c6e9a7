import { sql } from 'kysely';
import type { Database } from '../../db/database.js';
import type { FilterSpec } from '../../lib/filter.js';
import type { EntityRef } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import type { ApiTransfer } from './transfers.schemas.js';
import type { ServiceTransfersTable, TransferStatus } from './transfers.table.js';

export type TransferRow = Omit<ServiceTransfersTable, 'id'> & { id: number };

/** A transfer lives 24 hours from its creation (spec: entity transfer lifetime). */
export const TRANSFER_LIFETIME_MS = 24 * 3600 * 1000;

export const TRANSFER_FILTERS: FilterSpec = {
  status: { kind: 'string', column: 't.status' },
  is_sender: { kind: 'bool', column: 't.is_sender' },
};

/** Transfers with `is_sender` for the given account, as a subquery aliased `t`. */
export function transfersSeenBy(db: Database, accountId: number) {
  return db.db.selectFrom((eb) =>
    eb
      .selectFrom('service_transfers')
      .selectAll()
      .select(sql<number>`case when account_id = ${accountId} then 1 else 0 end`.as('is_sender'))
      .as('t'),
  );
}

export function parseEntities(text: string): { computes: number[] } {
  const v = JSON.parse(text) as { computes?: number[] };
  return { computes: v.computes ?? [] };
}

export function toApiTransfer(r: TransferRow, accountId: number): ApiTransfer {
  return {
    token: r.token,
    status: r.status,
    created: r.created,
    updated: r.updated,
    is_sender: r.account_id === accountId,
    expiry: r.expiry,
    entities: parseEntities(r.entities),
  };
}

export function findTransfer(
  db: Database,
  token: string,
  lock = false,
): Promise<TransferRow | undefined> {
  const q = db.db.selectFrom('service_transfers').selectAll().where('token', '=', token);
  return (lock ? db.forUpdate(q) : q).executeTakeFirst();
}

/** The transfer as event `entity` (`entity_transfer`, the reference's enum value). */
export function transferRef(r: TransferRow): EntityRef {
  return {
    type: 'entity_transfer',
    id: r.id,
    label: r.token,
    url: `/v4/account/service-transfers/${r.token}`,
  };
}

export async function setStatus(
  db: Database,
  r: TransferRow,
  status: TransferStatus,
  now: string,
  receiver?: number,
): Promise<void> {
  await db.db
    .updateTable('service_transfers')
    .set({
      status,
      updated: now,
      ...(receiver !== undefined ? { receiver_account_id: receiver } : {}),
    })
    .where('id', '=', r.id)
    .execute();
}

/** pending → stale, with `entity_transfer_stale` in the sender's feed. */
export async function markStale(
  db: Database,
  events: EventWriter,
  r: TransferRow,
  now: string,
): Promise<void> {
  await setStatus(db, r, 'stale', now);
  await events.record(db, {
    accountId: r.account_id,
    action: 'entity_transfer_stale',
    entity: transferRef(r),
    status: 'notification',
    username: null,
  });
}
