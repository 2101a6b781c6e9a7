import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter, type FilterSpec } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import { requireManaged } from './managed.account.js';
import type { ApiContact, CreateContact, UpdateContact } from './managed.schemas.js';
import type { ManagedContactsTable } from './managed.table.js';

type XFilter = string | string[] | undefined;
type ContactRow = Omit<ManagedContactsTable, 'id'> & { id: number };

const FILTERS: FilterSpec = { group: { kind: 'string', column: 'managed_contacts.group_name' } };
const NAME = /^[a-zA-Z0-9_ -]{2,64}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^[0-9+().\- x]{1,32}$/;

function toApi(r: ContactRow): ApiContact {
  return {
    id: r.id,
    name: r.name,
    email: r.email,
    phone: { primary: r.phone_primary, secondary: r.phone_secondary },
    group: r.group_name,
    updated: r.updated,
  };
}

/** Checks the fields given (a create gives them all); every failing field at once. */
function check(b: UpdateContact): void {
  const fe = new FieldErrors();
  if (b.name !== undefined)
    fe.check(
      !NAME.test(b.name),
      'name',
      'Name must be 2 to 64 characters of letters, digits, spaces, "-" and "_".',
    );
  if (b.email !== undefined)
    fe.check(
      b.email.length > 128 || !EMAIL.test(b.email),
      'email',
      'Email must be a valid email address.',
    );
  for (const k of ['primary', 'secondary'] as const) {
    const v = b.phone?.[k];
    if (v !== undefined && v !== null)
      fe.check(!PHONE.test(v), `phone.${k}`, 'Phone numbers are digits, spaces and + ( ) - . x.');
  }
  if (b.group !== undefined && b.group !== null)
    fe.check(
      b.group.length < 2 || b.group.length > 50,
      'group',
      'Group must be between 2 and 50 characters.',
    );
  fe.throwIfAny();
}

/** Managed contacts: who support may reach about an issue (grouped for services). */
export class ManagedContactsService {
  constructor(private readonly d: { db: Database; clock: Clock }) {}

  private async load(db: Database, p: Principal, id: number): Promise<ContactRow> {
    const row = await db.db
      .selectFrom('managed_contacts')
      .selectAll()
      .where('account_id', '=', p.accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) throw errors.notFound();
    return row as ContactRow;
  }

  async list(p: Principal, params: PageParams, xf: XFilter): Promise<Page<ApiContact>> {
    const { db } = this.d;
    await requireManaged(db, p);
    return paginate(
      db.db.selectFrom('managed_contacts').where('managed_contacts.account_id', '=', p.accountId),
      (qb) => qb.selectAll('managed_contacts'),
      compileFilter(xf, FILTERS, db.dialect),
      params,
      { idColumn: 'managed_contacts.id' },
      (r: ContactRow) => toApi(r),
    );
  }

  async get(p: Principal, id: number): Promise<ApiContact> {
    await requireManaged(this.d.db, p);
    return toApi(await this.load(this.d.db, p, id));
  }

  async create(p: Principal, b: CreateContact): Promise<ApiContact> {
    await requireManaged(this.d.db, p);
    check(b);
    const row = await this.d.db.db
      .insertInto('managed_contacts')
      .values({
        account_id: p.accountId,
        name: b.name,
        email: b.email,
        phone_primary: b.phone?.primary ?? null,
        phone_secondary: b.phone?.secondary ?? null,
        group_name: b.group ?? null,
        updated: isoSeconds(this.d.clock.nowMs()),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toApi(row as ContactRow);
  }

  async update(p: Principal, id: number, b: UpdateContact): Promise<ApiContact> {
    await requireManaged(this.d.db, p);
    check(b);
    return this.d.db.transaction(async (tx) => {
      await this.load(tx, p, id);
      await tx.db
        .updateTable('managed_contacts')
        .set({
          ...(b.name !== undefined ? { name: b.name } : {}),
          ...(b.email !== undefined ? { email: b.email } : {}),
          ...(b.phone?.primary !== undefined ? { phone_primary: b.phone.primary } : {}),
          ...(b.phone?.secondary !== undefined ? { phone_secondary: b.phone.secondary } : {}),
          ...(b.group !== undefined ? { group_name: b.group } : {}),
          updated: isoSeconds(this.d.clock.nowMs()),
        })
        .where('id', '=', id)
        .execute();
      return toApi(await this.load(tx, p, id));
    });
  }

  async delete(p: Principal, id: number): Promise<void> {
    await requireManaged(this.d.db, p);
    await this.d.db.transaction(async (tx) => {
      await this.load(tx, p, id);
      await tx.db.deleteFrom('managed_contacts').where('id', '=', id).execute();
    });
  }
}
