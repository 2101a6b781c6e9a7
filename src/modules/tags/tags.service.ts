import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import type { EntityRegistry, EntityView } from '../../entities/entities.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import type { CatalogueService } from '../catalogue/catalogue.service.js';
import type { EntityRef } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import { addTag, insertTag } from './tags.repository.js';
import { type CreateTag, tagFields } from './tags.schemas.js';

type XFilter = string | string[] | undefined;

export interface TagDeps {
  db: Database;
  clock: Clock;
  events: EventWriter;
  catalogue: CatalogueService;
  entities: EntityRegistry;
}

export interface TaggedObject {
  type: string;
  data: unknown;
}

const tagRef = (id: number, label: string): EntityRef => ({
  type: 'tag',
  id,
  label,
  url: `/v4/tags/${encodeURIComponent(label)}`,
});

/**
 * Tags of an account (`/tags`), over the `entity_tags` rows of every taggable entity type (the
 * types whose declaration has `taggable`). Every tag operation is for unrestricted users only.
 */
export class TagsService {
  constructor(private readonly d: TagDeps) {}

  private view(db: Database): EntityView {
    return { db, catalogue: this.d.catalogue };
  }

  private async find(db: Database, accountId: number, label: string) {
    return db.db
      .selectFrom('tags')
      .select(['id', 'label'])
      .where('account_id', '=', accountId)
      .where('label', '=', label)
      .executeTakeFirst();
  }

  async list(p: Principal, params: PageParams, xf: XFilter): Promise<Page<{ label: string }>> {
    authz.requireUnrestricted(p);
    const { db } = this.d;
    return paginate(
      db.db.selectFrom('tags').where('tags.account_id', '=', p.accountId),
      (qb) => qb.select('tags.label'),
      compileFilter(xf, {}, db.dialect),
      params,
      { idColumn: 'tags.label' },
      (r: { label: string }) => ({ label: r.label }),
    );
  }

  /**
   * Creates the tag (an existing tag is kept) and tags every listed entity with it. Every id must
   * name an entity of the account, or nothing is changed.
   */
  async create(p: Principal, b: CreateTag): Promise<{ label: string }> {
    authz.requireUnrestricted(p);
    const taggable = this.d.entities.taggable();
    return this.d.db.transaction(async (tx) => {
      const fe = new FieldErrors();
      const plan: { type: string; ids: number[] }[] = [];
      for (const field of tagFields(this.d.entities)) {
        const decl = taggable.find((d) => d.taggable.field === field);
        const given = [...new Set((b[field] as (number | string)[] | undefined) ?? [])];
        if (given.length === 0) continue;
        // A type named by other keys than ids (reserved addresses) resolves them first.
        const keyed = decl?.taggable.resolve
          ? await decl.taggable.resolve(tx, p.accountId, given.map(String))
          : undefined;
        const ids: number[] = [];
        for (const key of given) {
          const id = keyed ? keyed.get(String(key)) : (key as number);
          if (id === undefined) fe.add(field, `Unable to find the entity with id ${key}.`);
          else ids.push(id);
        }
        const found = decl
          ? await decl.taggable.render(this.view(tx), p.accountId, ids)
          : new Map<number, unknown>();
        ids.forEach((id) => {
          if (!found.has(id)) fe.add(field, `Unable to find the entity with id ${id}.`);
        });
        if (decl) plan.push({ type: decl.type, ids });
      }
      fe.throwIfAny();
      // One statement: the insert tells whether the tag is new (only a new tag has its event).
      const created = await insertTag(tx, p.accountId, b.label);
      for (const { type, ids } of plan) await addTag(tx, p.accountId, type, ids, b.label);
      if (created !== undefined) {
        await this.d.events.record(tx, {
          accountId: p.accountId,
          action: 'tag_create',
          entity: tagRef(created, b.label),
          status: 'notification',
          username: p.username,
        });
      }
      return { label: b.label };
    });
  }

  /** The entities of every taggable type that carry the tag, by type then id. */
  async objects(
    p: Principal,
    label: string,
    params: PageParams,
    xf?: XFilter,
  ): Promise<Page<TaggedObject>> {
    authz.requireUnrestricted(p);
    const { db } = this.d;
    if (!(await this.find(db, p.accountId, label))) throw errors.notFound();
    const taggable = this.d.entities.taggable();
    if (taggable.length === 0) return { data: [], page: params.page ?? 1, pages: 1, results: 0 };
    const page = await paginate(
      db.db
        .selectFrom('entity_tags')
        .where('entity_tags.account_id', '=', p.accountId)
        .where('entity_tags.tag', '=', label)
        .where(
          'entity_tags.entity_type',
          'in',
          taggable.map((d) => d.type),
        ),
      (qb) => qb.select(['entity_tags.entity_type', 'entity_tags.entity_id']),
      compileFilter(xf, {}, db.dialect),
      params,
      { idColumn: ['entity_tags.entity_type', 'entity_tags.entity_id'] },
      (r: { entity_type: string; entity_id: number }) => r,
    );
    const rendered = new Map<string, Map<number, unknown>>();
    for (const d of taggable) {
      const ids = page.data.filter((r) => r.entity_type === d.type).map((r) => r.entity_id);
      if (ids.length > 0)
        rendered.set(d.type, await d.taggable.render(this.view(db), p.accountId, ids));
    }
    const data = page.data.flatMap((r) => {
      const obj = rendered.get(r.entity_type)?.get(r.entity_id);
      return obj === undefined ? [] : [{ type: r.entity_type, data: obj }];
    });
    return { ...page, data };
  }

  /** Removes the tag from every entity of the account and deletes it. */
  async delete(p: Principal, label: string): Promise<void> {
    authz.requireUnrestricted(p);
    await this.d.db.transaction(async (tx) => {
      const row = await this.find(tx, p.accountId, label);
      if (!row) throw errors.notFound();
      await tx.db
        .deleteFrom('entity_tags')
        .where('account_id', '=', p.accountId)
        .where('tag', '=', label)
        .execute();
      await tx.db.deleteFrom('tags').where('id', '=', row.id).execute();
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'tag_delete',
        entity: tagRef(row.id, label),
        status: 'notification',
        username: p.username,
      });
    });
  }
}
