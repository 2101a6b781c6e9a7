import { randomUUID } from 'node:crypto';
import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import type { EntityRegistry, EntityType, Transferable } from '../../entities/entities.js';
import type { ApiError } from '../../errors/api-error.js';
import { errors } from '../../errors/errors.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import type { EventWriter } from '../events/events.writer.js';
import { dropTags } from '../tags/tags.repository.js';
import { receiverRefusal, senderRefusal } from './transfers.accounts.js';
import { expireTransferJob } from './transfers.jobs.js';
import {
  findTransfer,
  markStale,
  parseEntities,
  setStatus,
  TRANSFER_FILTERS,
  TRANSFER_LIFETIME_MS,
  type TransferRow,
  toApiTransfer,
  transferRef,
  transfersSeenBy,
} from './transfers.repository.js';
import type { ApiTransfer, CreateTransfer } from './transfers.schemas.js';

export interface TransferDeps {
  db: Database;
  clock: Clock;
  events: EventWriter;
  queue: JobQueue;
  entities: EntityRegistry;
}

type XFilter = string | string[] | undefined;
type Carried = { type: EntityType & { transferable: Transferable }; ids: number[] };

/**
 * Service transfers (and the deprecated entity transfers: the same records). Create checks and
 * locks the entities; accept locks them again, re-checks every area's refusals and runs every
 * area's move (`onTransferOf` of the entity declarations) in one transaction, so an entity moves
 * whole or not at all. Unrestricted users only.
 */
export class TransfersService {
  constructor(private readonly d: TransferDeps) {}

  /** The transferable types named in `entities`, with their ids (deduplicated, in order). */
  private carried(entities: Record<string, number[] | undefined>): Carried[] {
    return this.d.entities
      .transferable()
      .map((type) => ({ type, ids: [...new Set(entities[type.transferable.field] ?? [])] }))
      .filter((c) => c.ids.length > 0);
  }

  /** The first refusal of any area for these entities, as a 400 naming the field. */
  private async refusal(
    db: Database,
    accountId: number,
    c: Carried,
    receiverId?: number,
  ): Promise<ApiError | undefined> {
    for (const cascade of this.d.entities.transferCascadesOf(c.type.type)) {
      const reason = await cascade.refuse?.(db, accountId, c.ids, receiverId);
      if (reason) return errors.invalidField(`entities.${c.type.transferable.field}`, reason);
    }
    return undefined;
  }

  async create(p: Principal, body: CreateTransfer): Promise<ApiTransfer> {
    authz.requireUnrestricted(p);
    const carried = this.carried(body.entities);
    if (carried.length === 0) {
      throw errors.invalidField('entities', 'At least one entity to transfer is required.');
    }
    return this.d.db.transaction(async (tx) => {
      const pastDue = await senderRefusal(tx, p.accountId);
      if (pastDue) throw pastDue;
      for (const c of carried) {
        const field = `entities.${c.type.transferable.field}`;
        const found = new Set(
          (await c.type.transferable.lock(tx, p.accountId, c.ids)).map((e) => e.id),
        );
        const missing = c.ids.filter((id) => !found.has(id));
        if (missing.length > 0)
          throw errors.invalidField(field, `Not found: ${missing.join(', ')}.`);
        const busy = await this.inOpenTransfer(tx, p.accountId, c);
        if (busy !== undefined) {
          throw errors.invalidField(field, `${busy} is already part of a pending transfer.`);
        }
        const refused = await this.refusal(tx, p.accountId, c);
        if (refused) throw refused;
      }
      const nowMs = this.d.clock.nowMs();
      const now = isoSeconds(nowMs);
      const token = randomUUID();
      const entities: Record<string, number[]> = { computes: [] };
      for (const c of carried) entities[c.type.transferable.field] = c.ids;
      await tx.db
        .insertInto('service_transfers')
        .values({
          token,
          account_id: p.accountId,
          receiver_account_id: null,
          status: 'pending',
          entities: JSON.stringify(entities),
          created: now,
          updated: now,
          expiry: isoSeconds(nowMs + TRANSFER_LIFETIME_MS),
          expiry_ms: nowMs + TRANSFER_LIFETIME_MS,
        })
        .execute();
      const row = (await findTransfer(tx, token)) as TransferRow;
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'entity_transfer_create',
        entity: transferRef(row),
        status: 'notification',
        username: p.username,
      });
      await this.d.queue.enqueue(
        tx,
        expireTransferJob,
        { token },
        { accountId: p.accountId, delayMs: TRANSFER_LIFETIME_MS },
      );
      return toApiTransfer(row, p.accountId);
    });
  }

  /** The first of the entities already in a pending (or accepted) transfer of the account. */
  private async inOpenTransfer(db: Database, accountId: number, c: Carried) {
    const open = await db.db
      .selectFrom('service_transfers')
      .select('entities')
      .where('account_id', '=', accountId)
      .where('status', 'in', ['pending', 'accepted'])
      .execute();
    const taken = new Set(open.flatMap((r) => parseEntities(r.entities).computes));
    return c.ids.find((id) => taken.has(id));
  }

  list(p: Principal, params: PageParams, xFilter: XFilter): Promise<Page<ApiTransfer>> {
    authz.requireUnrestricted(p);
    const base = transfersSeenBy(this.d.db, p.accountId).where((eb) =>
      eb.or([eb('t.account_id', '=', p.accountId), eb('t.receiver_account_id', '=', p.accountId)]),
    );
    return paginate(
      base,
      (qb) => qb.selectAll('t'),
      compileFilter(xFilter, TRANSFER_FILTERS, this.d.db.dialect),
      params,
      { idColumn: 't.id' },
      (r: TransferRow) => toApiTransfer(r, p.accountId),
    );
  }

  /**
   * Who sees a transfer: its sender always; the account that accepted it; any other account
   * (holding the token) while it is pending.
   */
  private visible(p: Principal, r: TransferRow | undefined): r is TransferRow {
    if (!r) return false;
    return (
      r.account_id === p.accountId ||
      r.receiver_account_id === p.accountId ||
      r.status === 'pending'
    );
  }

  async get(p: Principal, token: string): Promise<ApiTransfer> {
    authz.requireUnrestricted(p);
    const row = await findTransfer(this.d.db, token);
    if (!this.visible(p, row)) throw errors.notFound();
    return toApiTransfer(row, p.accountId);
  }

  /**
   * Runs `fn` on the locked, visible transfer in a transaction that commits even when `fn`
   * answers an error (a transfer found expired goes stale, a failed accept stays failed).
   */
  private async settle(
    p: Principal,
    token: string,
    fn: (tx: Database, row: TransferRow, nowMs: number) => Promise<ApiError | undefined>,
  ): Promise<void> {
    authz.requireUnrestricted(p);
    const err = await this.d.db.transaction(async (tx) => {
      const row = await findTransfer(tx, token, true);
      if (!this.visible(p, row)) return errors.notFound();
      const nowMs = this.d.clock.nowMs();
      if (row.status === 'pending' && nowMs >= row.expiry_ms) {
        await markStale(tx, this.d.events, row, isoSeconds(nowMs));
        return errors.reason('This transfer has expired.');
      }
      if (row.status !== 'pending') {
        return errors.reason(`This transfer is ${row.status} and can no longer change.`);
      }
      return fn(tx, row, nowMs);
    });
    if (err) throw err;
  }

  async cancel(p: Principal, token: string): Promise<void> {
    await this.settle(p, token, async (tx, row, nowMs) => {
      if (row.account_id !== p.accountId) return errors.unauthorized();
      await setStatus(tx, row, 'canceled', isoSeconds(nowMs));
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'entity_transfer_cancel',
        entity: transferRef(row),
        status: 'notification',
        username: p.username,
      });
      return undefined;
    });
  }

  async accept(p: Principal, token: string): Promise<void> {
    await this.settle(p, token, async (tx, row, nowMs) => {
      if (row.account_id === p.accountId) {
        return errors.reason('A transfer cannot be accepted by the account that created it.');
      }
      const unbillable = await receiverRefusal(tx, p.accountId);
      if (unbillable) return unbillable;
      const now = isoSeconds(nowMs);
      const carried = this.carried(parseEntities(row.entities));
      for (const c of carried) {
        const found = await c.type.transferable.lock(tx, row.account_id, c.ids);
        if (found.length !== c.ids.length) {
          // An entity went away (deleted, being deleted): the transfer can never complete.
          await setStatus(tx, row, 'failed', now);
          await this.recordBoth(tx, row, 'entity_transfer_fail', p, 'failed');
          return errors.reason('The entities of this transfer are no longer available.');
        }
        const refused = await this.refusal(tx, row.account_id, c, p.accountId);
        if (refused) return refused;
      }
      const move = { from: row.account_id, to: p.accountId, nowMs };
      for (const c of carried) {
        for (const cascade of this.d.entities.transferCascadesOf(c.type.type)) {
          await cascade.move?.(tx, { ...move, ids: c.ids });
        }
        for (const id of c.ids) {
          if (c.type.grant) await authz.dropEntity(tx, c.type.grant, id);
          if (c.type.taggable) await dropTags(tx, c.type.type, id);
        }
      }
      // Billing follows in the cascades: the sender is billed up to `nowMs`, the receiver from then.
      await setStatus(tx, row, 'completed', now, p.accountId);
      await this.recordBoth(tx, row, 'entity_transfer_accept', p, 'notification');
      return undefined;
    });
  }

  /** The event in the sender's feed and in the receiver's (its user as `username`). */
  private async recordBoth(
    tx: Database,
    row: TransferRow,
    action: string,
    p: Principal,
    status: 'failed' | 'notification',
  ): Promise<void> {
    for (const accountId of [row.account_id, p.accountId]) {
      await this.d.events.record(tx, {
        accountId,
        action,
        entity: transferRef(row),
        status,
        username: accountId === p.accountId ? p.username : null,
      });
    }
  }
}
