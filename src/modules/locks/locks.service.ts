import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import type { EntityRegistry } from '../../entities/entities.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import { LOCK_FILTERS, LOCK_TYPES, LOCKABLE, type LockRow, lockOn } from './locks.repository.js';
import type { LockType } from './locks.table.js';

type XFilter = string | string[] | undefined;

export interface ApiLock {
  id: number;
  lock_type: LockType;
  entity: { id: number; type: string; label: string; url: string };
}

export interface LocksDeps {
  db: Database;
  clock: Clock;
  entities: EntityRegistry;
}

/**
 * Resource locks (`/locks`): delete protection of instances, volumes and NodeBalancers. Only
 * unrestricted users manage or read them, whatever their grants (the real service's rule). The
 * areas of the locked entities refuse what a lock forbids (locks.repository).
 */
export class LocksService {
  constructor(private readonly d: LocksDeps) {}

  /** The API shapes of lock rows, each entity labelled as its area lists it. */
  private async shape(db: Database, accountId: number, rows: LockRow[]): Promise<ApiLock[]> {
    const labels = new Map<string, Map<number, string>>();
    for (const type of new Set(rows.map((r) => r.entity_type))) {
      const list = (await this.d.entities.get(type)?.list(db, accountId)) ?? [];
      labels.set(type, new Map(list.map((e) => [e.id, e.label])));
    }
    return rows.map((r) => ({
      id: r.id,
      lock_type: r.lock_type,
      entity: {
        id: r.entity_id,
        type: r.entity_type,
        label: labels.get(r.entity_type)?.get(r.entity_id) ?? '',
        url: this.d.entities.get(r.entity_type)?.url(r.entity_id) ?? '',
      },
    }));
  }

  private async find(db: Database, accountId: number, id: number): Promise<LockRow> {
    const row = await db.db
      .selectFrom('resource_locks')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (!row) throw errors.notFound();
    return row;
  }

  async list(p: Principal, params: PageParams, xf: XFilter): Promise<Page<ApiLock>> {
    authz.requireUnrestricted(p);
    const { db } = this.d;
    const page = await paginate(
      db.db.selectFrom('resource_locks').where('resource_locks.account_id', '=', p.accountId),
      (qb) => qb.selectAll('resource_locks'),
      compileFilter(xf, LOCK_FILTERS, db.dialect),
      params,
      { idColumn: 'resource_locks.id' },
      (r: LockRow) => r,
    );
    return { ...page, data: await this.shape(db, p.accountId, page.data) };
  }

  async get(p: Principal, id: number): Promise<ApiLock> {
    authz.requireUnrestricted(p);
    const { db } = this.d;
    const [lock] = await this.shape(db, p.accountId, [await this.find(db, p.accountId, id)]);
    return lock as ApiLock;
  }

  /**
   * Locks an entity of the account. An entity has at most one lock: a second one, of either
   * type, is refused naming the lock to remove (the recorded wording).
   */
  async create(
    p: Principal,
    b: { entity_type: string; entity_id: number; lock_type?: string },
  ): Promise<ApiLock> {
    authz.requireUnrestricted(p);
    const lockType = (b.lock_type ?? 'cannot_delete') as LockType;
    const fe = new FieldErrors();
    const decl = LOCKABLE[b.entity_type] ? this.d.entities.get(b.entity_type) : undefined;
    if (!decl) fe.add('entity_type', 'entity_type is not valid');
    if (!LOCK_TYPES.includes(lockType)) fe.add('lock_type', 'lock_type is not valid');
    fe.throwIfAny();
    return this.d.db.transaction(async (tx) => {
      const entity = (await decl?.list(tx, p.accountId))?.find((e) => e.id === b.entity_id);
      if (!entity) throw errors.invalidField('entity_id', 'entity_id is not valid');
      const existing = await lockOn(tx, b.entity_type, b.entity_id);
      if (existing) {
        throw errors.invalidField(
          'lock_type',
          `The ${existing.lock_type} lock (Lock ID: ${existing.id}) needs to be removed to add ${lockType} lock. Can only have one of: ${LOCK_TYPES.join(', ')} locks`,
        );
      }
      const row = await tx.db
        .insertInto('resource_locks')
        .values({
          account_id: p.accountId,
          entity_type: b.entity_type,
          entity_id: b.entity_id,
          lock_type: lockType,
          created: isoSeconds(this.d.clock.nowMs()),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      const [lock] = await this.shape(tx, p.accountId, [row]);
      return lock as ApiLock;
    });
  }

  async delete(p: Principal, id: number): Promise<void> {
    authz.requireUnrestricted(p);
    await this.d.db.transaction(async (tx) => {
      const row = await this.find(tx, p.accountId, id);
      await tx.db.deleteFrom('resource_locks').where('id', '=', row.id).execute();
    });
  }
}
