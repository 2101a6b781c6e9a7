import type { Readable } from 'node:stream';
import { sql } from 'kysely';
import { authz, GRANT_TYPES, type GrantType } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { fromBool } from '../../db/database.js';
import type { EntityRegistry } from '../../entities/entities.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import { BlobTooLargeError, type BlobStore } from '../../storage/index.js';
import type { CatalogueService } from '../catalogue/catalogue.service.js';
import type { EntityRef } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import { notProvidedReason, unservedEntity } from '../../http/unserved.js';
import { ATTACHMENT_MAX_BYTES, checkAttachment } from './support.files.js';
import {
  findTicket,
  gravatarId,
  type ReplyRow,
  SUPPORT_GRAVATAR,
  SUPPORT_NAME,
  TICKET_FILTERS,
  type TicketRow,
  toApiReply,
  toApiTickets,
} from './support.repository.js';
import type { ApiReply, ApiTicket, CreateTicket } from './support.schemas.js';

type XFilter = string | string[] | undefined;

export interface SupportDeps {
  db: Database;
  clock: Clock;
  events: EventWriter;
  entities: EntityRegistry;
  catalogue: CatalogueService;
  /** The `tickets` blob store: attachment bytes. */
  bytes: BlobStore;
}

/** The body fields naming an entity, the entity type each names, and how the type reads. */
const ENTITY_FIELDS = [
  ['compute_id', 'compute', 'Compute'],
  ['database_id', 'database', 'Database'],
  ['domain_id', 'domain', 'Domain'],
  ['firewall_id', 'firewall', 'Firewall'],
  ['lkecluster_id', 'lkecluster', 'Kubernetes cluster'],
  ['longviewclient_id', 'longview', 'Longview client'],
  ['nodebalancer_id', 'nodebalancer', 'NodeBalancer'],
  ['volume_id', 'volume', 'Volume'],
  ['vpc_id', 'vpc', 'VPC'],
] as const;

/** The event reference of a ticket. */
export const ticketRef = (id: number, summary: string): EntityRef => ({
  type: 'ticket',
  id,
  label: summary,
  url: `/v4/support/tickets/${id}`,
});

/** What support-side openings take (Managed issues, the emulator controls). */
export interface SupportOpening {
  accountId: number;
  summary: string;
  description: string;
  managedIssue?: boolean;
}

/** What writing on a ticket from support's side needs (a job's context has both). */
export interface SupportWriter {
  clock: Clock;
  events: EventWriter;
}

async function addReply(
  w: SupportWriter,
  db: Database,
  t: TicketRow,
  description: string,
  by: string,
  fromSupport: boolean,
  gravatar: string,
): Promise<ApiReply> {
  const now = isoSeconds(w.clock.nowMs());
  const row = await db.db
    .insertInto('support_ticket_replies')
    .values({
      ticket_id: t.id,
      account_id: t.account_id,
      description,
      created: now,
      created_by: by,
      from_compute: fromBool(fromSupport),
      gravatar_id: gravatar,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await db.db
    .updateTable('support_tickets')
    .set({
      updated: now,
      updated_by: by,
      // Support's first answer opens a new ticket.
      ...(fromSupport && t.status === 'new' ? { status: 'open' as const } : {}),
    })
    .where('id', '=', t.id)
    .execute();
  return toApiReply(row as ReplyRow);
}

async function markClosed(w: SupportWriter, db: Database, t: TicketRow, by: string) {
  const now = isoSeconds(w.clock.nowMs());
  await db.db
    .updateTable('support_tickets')
    .set({ status: 'closed', closed: now, updated: now, updated_by: by })
    .where('id', '=', t.id)
    .execute();
}

/**
 * Opens a ticket as support (Managed issues, the emulator controls): not closable by the
 * customer, seen by every unrestricted user; event `ticket_create`. Inside the caller's
 * transaction.
 */
export async function openSupportTicket(
  w: SupportWriter,
  db: Database,
  o: SupportOpening,
): Promise<{ id: number; summary: string }> {
  const now = isoSeconds(w.clock.nowMs());
  const row = await db.db
    .insertInto('support_tickets')
    .values({
      account_id: o.accountId,
      summary: o.summary,
      description: o.description,
      status: 'new',
      closable: 0,
      opened_by: SUPPORT_NAME,
      opened_by_user_id: null,
      gravatar_id: SUPPORT_GRAVATAR,
      entity_type: null,
      entity_id: null,
      entity_label: null,
      entity_url: null,
      managed_issue: fromBool(o.managedIssue ?? false),
      opened: now,
      updated: now,
      updated_by: SUPPORT_NAME,
      closed: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await w.events.record(db, {
    accountId: o.accountId,
    action: 'ticket_create',
    entity: ticketRef(row.id, o.summary),
    status: 'notification',
    username: null,
  });
  return { id: row.id, summary: o.summary };
}

/**
 * A reply from support (a `new` ticket becomes `open`), optionally closing the ticket; event
 * `ticket_update`. Inside the caller's transaction.
 */
export async function supportAnswer(
  w: SupportWriter,
  db: Database,
  ticketId: number,
  description: string,
  opts: { by?: string | undefined; close?: boolean } = {},
): Promise<ApiReply> {
  const by = opts.by ?? SUPPORT_NAME;
  const t = (await db
    .forUpdate(db.db.selectFrom('support_tickets').selectAll().where('id', '=', ticketId))
    .executeTakeFirst()) as TicketRow | undefined;
  if (!t) throw errors.notFound();
  if (t.status === 'closed') throw errors.reason('This ticket is closed.');
  const reply = await addReply(w, db, t, description, by, true, SUPPORT_GRAVATAR);
  if (opts.close) await markClosed(w, db, t, by);
  await w.events.record(db, {
    accountId: t.account_id,
    action: 'ticket_update',
    entity: ticketRef(t.id, t.summary),
    status: 'notification',
    username: null,
  });
  return reply;
}

/** An attachment being uploaded: the multipart file part. */
export interface Upload {
  filename: string | undefined;
  mimetype: string | undefined;
  stream: Readable;
}

/**
 * Support tickets: opened by a user (on an entity of the account or on none) or by support
 * (Managed issues, the emulator controls), replies from both sides, attachments, close.
 * Restricted users see and act on the tickets they opened; unrestricted users on every ticket.
 */
export class TicketsService {
  constructor(readonly d: SupportDeps) {}

  private now(): string {
    return isoSeconds(this.d.clock.nowMs());
  }

  /** A ticket the caller may see (404 otherwise). */
  private async load(db: Database, p: Principal, id: number, lock = false): Promise<TicketRow> {
    const row = await findTicket(db, p.accountId, id, lock);
    if (!row) throw errors.notFound();
    if (p.restricted && row.opened_by_user_id !== p.userId) throw errors.notFound();
    return row;
  }

  private async one(db: Database, row: TicketRow): Promise<ApiTicket> {
    const [api] = await toApiTickets(db, this.d.entities, row.account_id, [row]);
    return api as ApiTicket;
  }

  private async reload(db: Database, id: number): Promise<ApiTicket> {
    const row = await db.db
      .selectFrom('support_tickets')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return this.one(db, row as TicketRow);
  }

  private async emailOf(db: Database, userId: number): Promise<string> {
    const u = await db.db
      .selectFrom('users')
      .select('email')
      .where('id', '=', userId)
      .executeTakeFirst();
    return u?.email ?? '';
  }

  /** Open tickets first, then the newest; `+order_by` in X-Filter replaces that order. */
  async list(p: Principal, params: PageParams, xf: XFilter): Promise<Page<ApiTicket>> {
    const { db } = this.d;
    let base = db.db
      .selectFrom('support_tickets')
      .where('support_tickets.account_id', '=', p.accountId);
    if (p.restricted) base = base.where('support_tickets.opened_by_user_id', '=', p.userId);
    const filter = compileFilter(xf, TICKET_FILTERS, db.dialect);
    const page = await paginate(
      base,
      (qb) => {
        const q = qb.selectAll('support_tickets');
        return filter.orderBy
          ? q
          : q.orderBy(sql`case when support_tickets.status = 'closed' then 1 else 0 end`);
      },
      filter,
      params,
      { idColumn: 'support_tickets.id', defaultDirection: 'desc' },
      (r: TicketRow) => r,
    );
    return { ...page, data: await toApiTickets(db, this.d.entities, p.accountId, page.data) };
  }

  async get(p: Principal, id: number): Promise<ApiTicket> {
    return this.one(this.d.db, await this.load(this.d.db, p, id));
  }

  /** The entity a new ticket is about (at most one), checked against the account and grants. */
  private async entityOf(db: Database, p: Principal, b: CreateTicket): Promise<EntityRef | null> {
    const fe = new FieldErrors();
    const given = ENTITY_FIELDS.filter(([field]) => b[field] !== undefined);
    const vlan = b.vlan !== undefined;
    if (b.region !== undefined && !vlan)
      fe.add('region', 'Region is only allowed when submitting a VLAN ticket.');
    if (vlan && b.region === undefined) fe.add('region', 'region is required with vlan.');
    if (given.length + (vlan ? 1 : 0) > 1) {
      fe.add(
        undefined,
        'Only one of compute_id, database_id, domain_id, firewall_id, lkecluster_id, longviewclient_id, nodebalancer_id, volume_id, vpc_id or vlan can be set on a ticket.',
      );
    }
    if (b.managed_issue && (given.length > 0 || vlan)) {
      fe.add('managed_issue', 'A Managed issue ticket cannot name an entity.');
    }
    fe.throwIfAny();
    if (vlan) return this.vlanRef(db, p, b.vlan as string, b.region as string);
    const [hit] = given;
    if (!hit) return null;
    const [field, type, name] = hit;
    const id = b[field] as number;
    const decl = this.d.entities.get(type);
    if (!decl) {
      const area = unservedEntity(type);
      throw errors.invalidField(field, area ? notProvidedReason(area) : `${name} not found`);
    }
    const found = (await decl.list(db, p.accountId)).find((e) => e.id === id);
    const grant = (GRANT_TYPES as readonly string[]).includes(type) ? (type as GrantType) : null;
    const visible =
      found !== undefined &&
      (grant === null || (await authz.permissionOn(db, p, grant, id)) !== null);
    if (!found || !visible) throw errors.invalidField(field, `${name} not found`);
    return { type: type as EntityRef['type'], id, label: found.label, url: decl.url(id) };
  }

  /** A VLAN of the account (a label in a region, through instances the caller may see). */
  private async vlanRef(db: Database, p: Principal, label: string, region: string) {
    if (!this.d.catalogue.region(region))
      throw errors.invalidField('region', 'region is not valid');
    let q = db.db
      .selectFrom('config_interfaces as ci')
      .innerJoin('instances as i', 'i.id', 'ci.instance_id')
      .select('i.id')
      .where('i.account_id', '=', p.accountId)
      .where('i.region', '=', region)
      .where('ci.purpose', '=', 'vlan')
      .where('ci.label', '=', label);
    const vis = authz.visible(p, 'compute', 'i.id');
    if (vis) q = q.where(vis);
    if (!(await q.executeTakeFirst())) throw errors.invalidField('vlan', 'VLAN not found');
    // A VLAN has no id: the reference is its label (in its region).
    return { type: 'vlan', id: null, label, url: '/v4/networking/vlans' } as unknown as EntityRef;
  }

  /** Opens a ticket as the calling user: `new`, closable by them; event `ticket_create`. */
  async create(p: Principal, body: CreateTicket): Promise<ApiTicket> {
    // `null` for an optional field means not given.
    const b = Object.fromEntries(
      Object.entries(body).filter(([, v]) => v !== null),
    ) as CreateTicket;
    const fe = new FieldErrors();
    fe.check(
      b.summary.trim().length < 1 || b.summary.length > 64,
      'summary',
      'Summary must be between 1 and 64 characters.',
    );
    fe.check(
      b.description.trim().length < 1 || b.description.length > 65000,
      'description',
      'Description must be between 1 and 65000 characters.',
    );
    fe.throwIfAny();
    return this.d.db.transaction(async (tx) => {
      const entity = await this.entityOf(tx, p, b);
      if (b.managed_issue) {
        const acct = await tx.db
          .selectFrom('accounts')
          .select('managed')
          .where('id', '=', p.accountId)
          .executeTakeFirst();
        if (!acct?.managed)
          throw errors.invalidField('managed_issue', 'Managed is not enabled on this account.');
      }
      const now = this.now();
      const row = await tx.db
        .insertInto('support_tickets')
        .values({
          account_id: p.accountId,
          summary: b.summary,
          description: b.description,
          status: 'new',
          closable: 1,
          opened_by: p.username,
          opened_by_user_id: p.userId,
          gravatar_id: gravatarId(await this.emailOf(tx, p.userId)),
          entity_type: entity?.type ?? null,
          entity_id: entity?.id ?? null,
          entity_label: entity?.label ?? null,
          entity_url: entity?.url ?? null,
          managed_issue: fromBool(b.managed_issue ?? false),
          opened: now,
          updated: now,
          updated_by: p.username,
          closed: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'ticket_create',
        entity: ticketRef(row.id, b.summary),
        status: 'notification',
        username: p.username,
      });
      return this.reload(tx, row.id);
    });
  }

  async replies(p: Principal, id: number, params: PageParams): Promise<Page<ApiReply>> {
    const { db } = this.d;
    await this.load(db, p, id);
    return paginate(
      db.db.selectFrom('support_ticket_replies').where('ticket_id', '=', id),
      (qb) => qb.selectAll(),
      { where: undefined, orderBy: undefined },
      params,
      { idColumn: 'id' },
      (r: ReplyRow) => toApiReply(r),
    );
  }

  /** A reply from the caller; event `ticket_update`. A closed ticket takes no replies. */
  async reply(p: Principal, id: number, description: string): Promise<ApiReply> {
    if (description.trim().length < 1 || description.length > 65535) {
      throw errors.invalidField(
        'description',
        'Description must be between 1 and 65535 characters.',
      );
    }
    return this.d.db.transaction(async (tx) => {
      const t = await this.load(tx, p, id, true);
      if (t.status === 'closed') throw errors.reason('This ticket is closed.');
      const gravatar = gravatarId(await this.emailOf(tx, p.userId));
      const reply = await addReply(this.d, tx, t, description, p.username, false, gravatar);
      await this.d.events.record(tx, {
        accountId: t.account_id,
        action: 'ticket_update',
        entity: ticketRef(t.id, t.summary),
        status: 'notification',
        username: p.username,
      });
      return reply;
    });
  }

  /** Closes a ticket the caller may close; event `ticket_update`. */
  async close(p: Principal, id: number): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const t = await this.load(tx, p, id, true);
      if (t.status === 'closed') throw errors.reason('This ticket is already closed.');
      if (!t.closable) throw errors.reason('This ticket cannot be closed.');
      await markClosed(this.d, tx, t, p.username);
      await this.d.events.record(tx, {
        accountId: t.account_id,
        action: 'ticket_update',
        entity: ticketRef(t.id, t.summary),
        status: 'notification',
        username: p.username,
      });
    });
  }

  /** 404 or 400 before an upload's bytes are read: the ticket must be there and open. */
  async checkAttachable(p: Principal, id: number): Promise<void> {
    const t = await this.load(this.d.db, p, id);
    if (t.status === 'closed') throw errors.reason('This ticket is closed.');
  }

  /**
   * Stores an attachment: the bytes go to the blob store under a fresh key, then its row (and
   * event `ticket_attachment_upload`) commit; a refused or failed upload leaves no blob behind.
   */
  async attach(p: Principal, id: number, up: Upload | undefined): Promise<void> {
    if (!up) throw errors.invalidField('file', 'A file is required (multipart field "file").');
    const ok = checkAttachment(up.filename, up.mimetype);
    if ('problem' in ok) {
      up.stream.resume();
      throw errors.invalidField('file', ok.problem);
    }
    const { bytes } = this.d;
    const key = bytes.newKey();
    let size: number;
    try {
      size = (await bytes.put(key, up.stream, { maxBytes: ATTACHMENT_MAX_BYTES })).size;
      // The multipart parser stops at the limit and marks the part truncated.
      if ((up.stream as { truncated?: boolean }).truncated) {
        await bytes.delete(key).catch(() => undefined);
        throw new BlobTooLargeError('truncated');
      }
    } catch (err) {
      up.stream.resume();
      const code = String((err as { code?: unknown }).code ?? '');
      if (err instanceof BlobTooLargeError || code === 'FST_REQ_FILE_TOO_LARGE')
        throw errors.invalidField('file', 'The file must be at most 5 MiB.');
      // The upload itself broke off (busboy's errors): the client's fault, not the store's.
      if (code.startsWith('FST_') || /unexpected end|multipart/i.test(String(err)))
        throw errors.invalidField('file', 'The upload ended before the whole file was sent.');
      throw err;
    }
    try {
      await this.d.db.transaction(async (tx) => {
        const t = await this.load(tx, p, id, true);
        if (t.status === 'closed') throw errors.reason('This ticket is closed.');
        await tx.db
          .insertInto('support_ticket_attachments')
          .values({
            ticket_id: t.id,
            account_id: t.account_id,
            filename: ok.name,
            content_type: ok.contentType,
            size,
            blob_key: key,
            created: this.now(),
          })
          .execute();
        await tx.db
          .updateTable('support_tickets')
          .set({ updated: this.now(), updated_by: p.username })
          .where('id', '=', t.id)
          .execute();
        await this.d.events.record(tx, {
          accountId: t.account_id,
          action: 'ticket_attachment_upload',
          entity: ticketRef(t.id, t.summary),
          status: 'notification',
          username: p.username,
        });
      });
    } catch (err) {
      await bytes.delete(key).catch(() => undefined);
      throw err;
    }
  }

  /** The emulator control: a ticket support opens on an account. */
  async openForAccount(euuid: string, summary: string, description: string): Promise<ApiTicket> {
    return this.d.db.transaction(async (tx) => {
      const acct = await tx.db
        .selectFrom('accounts')
        .select('id')
        .where('euuid', '=', euuid)
        .executeTakeFirst();
      if (!acct) throw errors.invalidField('euuid', 'No account has this euuid.');
      const { id } = await openSupportTicket(this.d, tx, {
        accountId: acct.id,
        summary,
        description,
      });
      return this.reload(tx, id);
    });
  }

  /** The emulator control: support answers a ticket. */
  async supportReply(ticketId: number, description: string, by?: string): Promise<ApiReply> {
    return this.d.db.transaction((tx) => supportAnswer(this.d, tx, ticketId, description, { by }));
  }
}
