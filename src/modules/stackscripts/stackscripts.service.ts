import { createHash } from 'node:crypto';
import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import { grantsScope } from '../../auth/scopes.js';
import type { Database } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import type { CatalogueService } from '../catalogue/catalogue.service.js';
import type { EntityRef } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import {
  ANY_IMAGE,
  findOwn,
  findVisible,
  type ListedStackScript,
  STACKSCRIPT_FILTERS,
  type StackScriptRow,
  toApiStackScript,
  visibleStackScripts,
} from './stackscripts.repository.js';
import type {
  ApiStackScript,
  CreateStackScript,
  UpdateStackScript,
} from './stackscripts.schemas.js';
import { parseUdfs } from './udf.js';

type XFilter = string | string[] | undefined;

export interface StackScriptDeps {
  db: Database;
  clock: Clock;
  events: EventWriter;
  catalogue: CatalogueService;
}

export const stackScriptRef = (id: number, label: string): EntityRef => ({
  type: 'stackscript',
  id,
  label,
  url: `/v4/compute/stackscripts/${id}`,
});

/** StackScripts: public ones of every account and the caller's own. */
export class StackScriptsService {
  constructor(private readonly d: StackScriptDeps) {}

  private now(): string {
    return isoSeconds(this.d.clock.nowMs());
  }

  /** The caller as the listing sees it: anonymous unless its token may read StackScripts. */
  private viewer(p: Principal | undefined): Principal | undefined {
    return p && grantsScope(p.scopes, 'stackscripts:read_only') ? p : undefined;
  }

  list(p: Principal | undefined, params: PageParams, xf: XFilter): Promise<Page<ApiStackScript>> {
    const { db } = this.d;
    return paginate(
      visibleStackScripts(db, this.viewer(p)),
      (qb) => qb.selectAll('s'),
      compileFilter(xf, STACKSCRIPT_FILTERS, db.dialect),
      params,
      { idColumn: 's.id' },
      (r: ListedStackScript) => toApiStackScript(r),
    );
  }

  async get(p: Principal, id: number): Promise<ApiStackScript> {
    const row = await findVisible(this.d.db, p, id);
    if (!row) throw errors.notFound();
    return toApiStackScript(row);
  }

  private async one(db: Database, p: Principal, id: number): Promise<ApiStackScript> {
    return toApiStackScript((await findVisible(db, p, id)) as ListedStackScript);
  }

  /** A script of the caller's account with `level`; another account's public script: 403. */
  private async load(db: Database, p: Principal, id: number): Promise<StackScriptRow> {
    const row = await findOwn(db, p.accountId, id, true);
    if (!row) {
      if (await findVisible(db, p, id)) throw errors.unauthorized();
      throw errors.notFound();
    }
    await authz.requireEntity(db, p, 'stackscript', id, 'read_write');
    return row;
  }

  /** The script's rules: a shebang first line; images that exist (or `any/all`). */
  private async check(
    fe: FieldErrors,
    p: Principal,
    b: { script?: string; images?: string[] },
  ): Promise<void> {
    if (b.script !== undefined && !b.script.startsWith('#!'))
      fe.add('script', 'StackScript must begin with a shebang (#!)');
    for (const [i, image] of (b.images ?? []).entries()) {
      if (image === ANY_IMAGE) continue;
      if (!(await this.d.catalogue.image(image, p.accountId)))
        fe.add(`images.${i}`, `${image} is not a valid image`);
    }
  }

  private async gravatar(p: Principal): Promise<string> {
    const user = await this.d.db.db
      .selectFrom('users')
      .select('email')
      .where('id', '=', p.userId)
      .executeTakeFirst();
    return createHash('md5')
      .update((user?.email ?? '').trim().toLowerCase())
      .digest('hex');
  }

  async create(p: Principal, b: CreateStackScript): Promise<ApiStackScript> {
    authz.requireGlobal(p, 'add_stackscripts');
    const fe = new FieldErrors();
    await this.check(fe, p, b);
    fe.throwIfAny();
    const gravatar = await this.gravatar(p);
    return this.d.db.transaction(async (tx) => {
      const now = this.now();
      const { id } = await tx.db
        .insertInto('stackscripts')
        .values({
          account_id: p.accountId,
          username: p.username,
          user_gravatar_id: gravatar,
          label: b.label,
          description: b.description ?? '',
          images: JSON.stringify([...new Set(b.images)]),
          script: b.script,
          rev_note: b.rev_note ?? '',
          user_defined_fields: JSON.stringify(parseUdfs(b.script)),
          is_public: b.is_public ? 1 : 0,
          deployments_total: 0,
          created: now,
          updated: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await authz.grantCreator(tx, p, 'stackscript', id);
      await this.event(tx, p, 'stackscript_create', id, b.label);
      return this.one(tx, p, id);
    });
  }

  private event(db: Database, p: Principal, action: string, id: number, label: string) {
    return this.d.events.record(db, {
      accountId: p.accountId,
      action,
      entity: stackScriptRef(id, label),
      status: 'notification',
      username: p.username,
    });
  }

  /** Update; `is_public` goes one way; a new script is a revision (its fields re-parsed). */
  async update(p: Principal, id: number, b: UpdateStackScript): Promise<ApiStackScript> {
    const fe = new FieldErrors();
    await this.check(fe, p, b);
    fe.throwIfAny();
    return this.d.db.transaction(async (tx) => {
      const row = await this.load(tx, p, id);
      if (b.is_public === false && row.is_public === 1)
        throw errors.invalidField('is_public', 'A public StackScript cannot be made private');
      const revised = b.script !== undefined && b.script !== row.script;
      const publicized = b.is_public === true && row.is_public === 0;
      await tx.db
        .updateTable('stackscripts')
        .set({
          ...(b.label !== undefined ? { label: b.label } : {}),
          ...(b.description !== undefined ? { description: b.description } : {}),
          ...(b.images !== undefined ? { images: JSON.stringify([...new Set(b.images)]) } : {}),
          ...(b.rev_note !== undefined ? { rev_note: b.rev_note } : {}),
          ...(publicized ? { is_public: 1 } : {}),
          ...(revised && b.script !== undefined
            ? { script: b.script, user_defined_fields: JSON.stringify(parseUdfs(b.script)) }
            : {}),
          updated: this.now(),
        })
        .where('id', '=', id)
        .execute();
      const label = b.label ?? row.label;
      await this.event(tx, p, 'stackscript_update', id, label);
      if (revised) await this.event(tx, p, 'stackscript_revise', id, label);
      if (publicized) await this.event(tx, p, 'stackscript_publicize', id, label);
      return this.one(tx, p, id);
    });
  }

  /** Delete a private StackScript (a public one cannot be deleted: reference). */
  async delete(p: Principal, id: number): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const row = await this.load(tx, p, id);
      if (row.is_public === 1) throw errors.reason('A public StackScript cannot be deleted.');
      await authz.dropEntity(tx, 'stackscript', id);
      await tx.db.deleteFrom('stackscript_deployments').where('stackscript_id', '=', id).execute();
      await tx.db.deleteFrom('stackscripts').where('id', '=', id).execute();
      await this.event(tx, p, 'stackscript_delete', id, row.label);
    });
  }
}
