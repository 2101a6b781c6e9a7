import type { TSchema } from '@sinclair/typebox';
import type { GrantType } from '../auth/authz.js';
import type { Database } from '../db/database.js';
import type { Logger } from 'pino';
import type { JobQueue } from '../jobs/queue.js';
import type { Timing } from '../jobs/timing.js';
import type { Clock } from '../lib/clock.js';
import type { EventWriter } from '../modules/events/events.writer.js';
import type { CatalogueService } from '../modules/catalogue/catalogue.service.js';

/** One entity of an account as the cross-cutting views name it: its id and current label. */
export interface EntitySummary {
  id: number;
  label: string;
}

/**
 * An entity type, declared once by the area that owns it. The cross-cutting mechanisms (grants
 * and the grants views, event entity references, and later tags, billing facts, transfers, reset
 * and firewall devices) read these records instead of being told about each area by hand, so a
 * new area is wired in when its declaration is complete, and one test walks every declared type.
 * Areas add fields here as their seam needs them; a field stays optional only where some types
 * have no such seam.
 */
export interface EntityType {
  /** The name in event `entity.type`, as the reference's enum spells it (e.g. `compute`). */
  type: string;
  /** The grant type (a key of the reference's GrantsResponse) when users get per-entity grants. */
  grant?: GrantType;
  /** The entity's API path, as event `entity.url` shows it. */
  url(id: number): string;
  /** Every entity of this type in an account, ordered by id (grants views, grant checks). */
  list(db: Database, accountId: number): Promise<EntitySummary[]>;
  /**
   * What this type does when an entity of another type goes away, keyed by that type's name and
   * run inside the delete's transaction before the entity's row is removed (e.g. a volume
   * declares `compute: detach` so an instance's deletion detaches its volumes).
   */
  onDeleteOf?: Readonly<Record<string, DeleteCascade>>;
  /**
   * Present when entities of this type carry tags (`entity_tags` rows under `type`). The tags
   * area (`/tags`) reads it: `POST /tags` tags ids of every taggable type named in its body, and
   * `GET /tags/{label}` lists the tagged entities of every taggable type as `{type, data}`.
   */
  taggable?: Taggable;
  /**
   * Present on the types a service transfer carries (`POST /account/service-transfers` lists
   * their ids under `entities.<field>`). The transfers area (src/modules/transfers) reads it.
   */
  transferable?: Transferable;
  /**
   * What this type does when entities of another type move to another account (a service
   * transfer's accept), keyed by that type's name (a type may declare its own, e.g. `compute`
   * moves instances, disks and configs). Refusals are checked when the transfer is created and
   * again, on locked rows, when it is accepted; moves run inside the accept's transaction.
   */
  onTransferOf?: Readonly<Record<string, TransferCascade>>;
}

/** What the transfers area needs of a transferable type. */
export interface Transferable {
  /** The key under `entities` (e.g. `computes`). */
  field: string;
  /**
   * Those of `ids` that the account owns and that still exist (not being deleted), locked until
   * the transaction ends (PostgreSQL `FOR UPDATE`), ordered by id.
   */
  lock(db: Database, accountId: number, ids: readonly number[]): Promise<EntitySummary[]>;
}

/** A move of entities from one account to another, inside the accept's transaction. */
export interface TransferMove {
  ids: readonly number[];
  from: number;
  to: number;
  nowMs: number;
}

/** One area's part of a transfer of entities of another (or its own) type. */
export interface TransferCascade {
  /**
   * Why these entities cannot leave their account (a 400 reason), or undefined. `receiverId` is
   * the accepting account at accept (undefined at create, when the receiver is not known yet).
   */
  refuse?(
    db: Database,
    accountId: number,
    ids: readonly number[],
    receiverId?: number,
  ): Promise<string | undefined>;
  /** Moves this area's rows tied to the entities to the receiving account. */
  move?(db: Database, m: TransferMove): Promise<void>;
}

/** What the tags area needs of a taggable entity type. */
export interface Taggable {
  /** The body field of `POST /tags` listing ids of this type (e.g. `computes`, `volumes`). */
  field: string;
  /**
   * Present when the body field lists other keys than ids (reserved addresses are named by their
   * address): the ids of the account's entities with those keys, keyed by key.
   */
  resolve?(db: Database, accountId: number, keys: readonly string[]): Promise<Map<string, number>>;
  /** The schema of the API object (`data` of a tagged object in `GET /tags/{label}`). */
  schema: TSchema;
  /**
   * The API objects (as the type's own view answers them) of those of `ids` that exist in the
   * account, keyed by id. Ids of other accounts or of nothing are left out.
   */
  render(
    view: EntityView,
    accountId: number,
    ids: readonly number[],
  ): Promise<Map<number, unknown>>;
}

/** What rendering an entity's API object may need. */
export interface EntityView {
  db: Database;
  catalogue: CatalogueService;
}

/**
 * Runs in the deleting transaction; `deleted` is the entity about to be removed. Deletes run in a
 * job (instances) or in a request (NodeBalancers), so the context is a job's without its job.
 */
export type DeleteCascade = (
  db: Database,
  deleted: EntitySummary,
  ctx: CascadeContext,
) => Promise<void>;

/** What a cascade sees: a job step's context without the job's own bookkeeping (jobs/job.ts). */
export interface CascadeContext {
  db: Database;
  clock: Clock;
  timing: Timing;
  events: EventWriter;
  queue: JobQueue;
  /** Every declared entity type (cascades on delete, grants, …). */
  entities: EntityRegistry;
  log: Logger;
}

/** Every declared entity type, held by the context (nothing is registered at import time). */
export class EntityRegistry {
  private readonly byType = new Map<string, EntityType>();
  private readonly byGrantType = new Map<GrantType, EntityType>();

  constructor(declarations: readonly EntityType[]) {
    for (const d of declarations) {
      if (this.byType.has(d.type)) throw new Error(`entity type ${d.type} declared twice`);
      this.byType.set(d.type, d);
      if (d.grant) {
        if (this.byGrantType.has(d.grant)) throw new Error(`grant type ${d.grant} declared twice`);
        this.byGrantType.set(d.grant, d);
      }
    }
  }

  all(): EntityType[] {
    return [...this.byType.values()];
  }

  get(type: string): EntityType | undefined {
    return this.byType.get(type);
  }

  /** The entity type a grant type names, if an area declared it. */
  forGrant(grant: GrantType): EntityType | undefined {
    return this.byGrantType.get(grant);
  }

  /** Every cascade declared for the deletion of an entity of `type`, in declaration order. */
  cascadesOf(type: string): DeleteCascade[] {
    const out: DeleteCascade[] = [];
    for (const d of this.byType.values()) {
      const c = d.onDeleteOf?.[type];
      if (c) out.push(c);
    }
    return out;
  }

  /** Every transfer cascade declared for entities of `type`, in declaration order. */
  transferCascadesOf(type: string): TransferCascade[] {
    const out: TransferCascade[] = [];
    for (const d of this.byType.values()) {
      const c = d.onTransferOf?.[type];
      if (c) out.push(c);
    }
    return out;
  }

  /** Every transferable type, in declaration order. */
  transferable(): (EntityType & { transferable: Transferable })[] {
    return this.all().filter(
      (d): d is EntityType & { transferable: Transferable } => !!d.transferable,
    );
  }

  /** Every taggable type, in declaration order. */
  taggable(): (EntityType & { taggable: Taggable })[] {
    return this.all().filter((d): d is EntityType & { taggable: Taggable } => !!d.taggable);
  }

  /** The entities a grant of this type can name in an account (none for undeclared types). */
  async grantable(db: Database, accountId: number, grant: GrantType): Promise<EntitySummary[]> {
    const d = this.byGrantType.get(grant);
    return d ? d.list(db, accountId) : [];
  }
}
