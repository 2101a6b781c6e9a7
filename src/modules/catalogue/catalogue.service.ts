import type { Expression, RawBuilder, SqlBool } from 'kysely';
import type { Principal } from '../../auth/principal.js';
import { grantsScope } from '../../auth/scopes.js';
import type { Database } from '../../db/database.js';
import { parseJson, toBool } from '../../db/database.js';
import { refuseUnserved } from '../../http/unserved.js';
import { authz } from '../../auth/authz.js';
import { errors, type FieldErrors } from '../../errors/errors.js';
import { compileFilter } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import type {
  CatalogueData,
  Image,
  ImageExtras,
  InstanceType,
  Kernel,
  Region,
  RegionExtras,
} from './catalogue.data.js';
import {
  AVAILABILITY_FILTERS,
  IMAGE_FILTERS,
  KERNEL_FILTERS,
  REGION_FILTERS,
  TYPE_FILTERS,
} from './catalogue.repository.js';

type XFilter = string | string[] | undefined;
const fromData = <T>(row: { data: string }): T => parseJson<T>(row.data, {} as T);
/** Public images are stored without tags; private ones with theirs. */
const imageOf = (row: { data: string }): Image => {
  const image = fromData<
    Omit<Image, 'tags' | 'regions' | 'is_shared' | 'image_sharing'> & Partial<Image>
  >(row);
  // Public images: no replicas, no sharing (the wire's values); private ones carry their own.
  return {
    ...image,
    tags: image.tags ?? [],
    regions: image.regions ?? null,
    // A shared image's is null (as the share group entries show it).
    is_shared: image.is_shared === undefined ? false : image.is_shared,
    image_sharing: image.image_sharing ?? null,
  };
};

/**
 * Regions, instance types, kernels and images. Single records of the shipped catalogue are
 * served from memory; every list is filtered and paged in SQL.
 */
/**
 * The private image a `shared/<n>` image id stands for, for an account (the number of its
 * `private/<n>`), or undefined: told by the image sharing area, which the catalogue cannot need.
 */
export type SharedImageResolver = (
  db: Database,
  accountId: number,
  sharedId: string,
) => Promise<number | undefined>;

/**
 * The condition that an `images` row's `share_id` (the column named) is an entry of a share
 * group the account is an active member of: told by the image sharing area.
 */
export type SharedImageVisibility = (
  accountId: number,
  shareIdColumn: string,
) => RawBuilder<SqlBool>;

export class CatalogueService {
  private sharedImages: SharedImageResolver | undefined;
  private sharedVisible: SharedImageVisibility | undefined;
  private readonly regionsById: Map<string, Region>;
  private readonly typesById: Map<string, InstanceType>;
  private readonly kernelsById: Map<string, Kernel>;

  constructor(
    private readonly db: Database,
    private readonly data: CatalogueData,
  ) {
    this.regionsById = new Map(data.regions.map((r) => [r.id, r]));
    this.typesById = new Map(data.types.map((t) => [t.id, t]));
    this.kernelsById = new Map(data.kernels.map((k) => [k.id, k]));
  }

  // ---- lookups for other areas ----
  region(id: string): Region | undefined {
    return this.regionsById.get(id);
  }
  regionExtras(id: string): RegionExtras | undefined {
    return this.data.regionExtras[id];
  }
  regionHas(id: string, capability: string): boolean {
    return this.regionsById.get(id)?.capabilities.includes(capability) ?? false;
  }
  type(id: string): InstanceType | undefined {
    return this.typesById.get(id);
  }
  kernel(id: string): Kernel | undefined {
    return this.kernelsById.get(id);
  }
  imageExtras(id: string): ImageExtras | undefined {
    return this.data.imageExtras[id];
  }
  /** A public image, or a private image of the account. */
  async image(id: string, accountId: number | undefined): Promise<Image | undefined> {
    const row = await this.imageRow(id, accountId);
    return row ? imageOf(row) : undefined;
  }

  /**
   * A public image or a private image of the account; with `shared`, also a shared image
   * (`shared/<n>`) of a group the account is a member of.
   */
  private imageRow(id: string, accountId: number | undefined, shared = false, db = this.db) {
    const visible = shared && accountId !== undefined ? this.sharedVisible : undefined;
    return db.db
      .selectFrom('images')
      .select(['data', 'private_id', 'share_id', 'status'])
      .where('id', '=', id)
      .where((eb) => {
        if (accountId === undefined) return eb('images.account_id', 'is', null);
        const own = eb.and([
          eb('images.account_id', '=', accountId),
          eb('images.share_id', 'is', null),
        ]);
        const ways: Expression<SqlBool>[] = [eb('images.account_id', 'is', null), own];
        if (visible) ways.push(visible(accountId, 'images.share_id'));
        return eb.or(ways);
      })
      .executeTakeFirst();
  }

  /**
   * The image sharing area resolves `shared/<n>` ids (see `deployableImage`) and tells which
   * shared images an account sees (its groups' entries, listed in `images` with `share_id`).
   */
  resolveSharedImagesWith(resolver: SharedImageResolver, visible: SharedImageVisibility): void {
    this.sharedImages = resolver;
    this.sharedVisible = visible;
  }

  /** A shared image (`shared/<n>`) of a group the account is a member of, or undefined. */
  async sharedImage(db: Database, id: string, accountId: number): Promise<Image | undefined> {
    if (!id.startsWith('shared/')) return undefined;
    const row = await this.imageRow(id, accountId, true, db);
    return row && row.share_id !== null && row.share_id !== undefined ? imageOf(row) : undefined;
  }

  /**
   * The image a deployment by `p` may use: public, or a private image of its account that is
   * `available` and that a restricted user holds a grant on, or a `shared/<n>` image of a share
   * group the account is an active member of (the producer's image, `available`; its bytes are
   * deployed, the instance keeps the `shared/<n>` id). Otherwise a field error on `field`.
   */
  async deployableImage(
    p: Principal,
    id: string,
    fe: FieldErrors,
    field = 'image',
  ): Promise<Image | undefined> {
    if (id.startsWith('shared/')) return this.deployableShared(p, id, fe, field);
    const row = await this.imageRow(id, p.accountId);
    const hidden =
      row?.private_id !== null &&
      row?.private_id !== undefined &&
      (await authz.permissionOn(this.db, p, 'image', row.private_id)) === null;
    if (!row || hidden) {
      fe.add(field, 'image is not valid');
      return undefined;
    }
    if (row.status !== 'available') {
      fe.add(field, `Image ${id} is not available for deployment (status ${row.status})`);
      return undefined;
    }
    return imageOf(row);
  }

  private async deployableShared(
    p: Principal,
    id: string,
    fe: FieldErrors,
    field: string,
  ): Promise<Image | undefined> {
    const privateId = await this.sharedImages?.(this.db, p.accountId, id);
    const row =
      privateId === undefined
        ? undefined
        : await this.db.db
            .selectFrom('images')
            .select(['data', 'private_id', 'status'])
            .where('private_id', '=', privateId)
            .executeTakeFirst();
    if (!row) {
      fe.add(field, 'image is not valid');
      return undefined;
    }
    if (row.status !== 'available') {
      fe.add(field, `Image ${id} is not available for deployment (status ${row.status})`);
      return undefined;
    }
    return imageOf(row);
  }

  // ---- endpoints ----
  listRegions(params: PageParams, xf: XFilter): Promise<Page<Region>> {
    return paginate(
      this.db.db.selectFrom('regions'),
      (qb) => qb.select('regions.data'),
      compileFilter(xf, REGION_FILTERS, this.db.dialect),
      params,
      { idColumn: 'regions.id' },
      (r: { data: string }) => fromData<Region>(r),
    );
  }

  getRegion(id: string): Region {
    const r = this.region(id);
    if (!r) throw errors.notFound();
    return r;
  }

  listAvailability(params: PageParams, xf: XFilter) {
    return paginate(
      this.db.db.selectFrom('region_availability'),
      (qb) =>
        qb.select([
          'region_availability.region',
          'region_availability.plan',
          'region_availability.available',
        ]),
      compileFilter(xf, AVAILABILITY_FILTERS, this.db.dialect),
      params,
      { idColumn: ['region_availability.region', 'region_availability.plan'] },
      (r: { region: string; plan: string; available: number }) => ({
        region: r.region,
        plan: r.plan,
        available: toBool(r.available),
      }),
    );
  }

  async regionAvailability(id: string) {
    this.getRegion(id);
    const rows = await this.db.db
      .selectFrom('region_availability')
      .select(['region', 'plan', 'available'])
      .where('region', '=', id)
      .orderBy('plan')
      .execute();
    return rows.map((r) => ({ region: r.region, plan: r.plan, available: toBool(r.available) }));
  }

  listTypes(params: PageParams, xf: XFilter): Promise<Page<InstanceType>> {
    return paginate(
      this.db.db.selectFrom('types'),
      (qb) => qb.select('types.data'),
      compileFilter(xf, TYPE_FILTERS, this.db.dialect),
      params,
      { idColumn: 'types.id' },
      (r: { data: string }) => fromData<InstanceType>(r),
    );
  }

  getType(id: string): InstanceType {
    const t = this.type(id);
    if (!t) throw errors.notFound();
    return t;
  }

  listKernels(params: PageParams, xf: XFilter): Promise<Page<Kernel>> {
    return paginate(
      this.db.db.selectFrom('kernels'),
      (qb) => qb.select('kernels.data'),
      compileFilter(xf, KERNEL_FILTERS, this.db.dialect),
      params,
      { idColumn: 'kernels.id' },
      (r: { data: string }) => fromData<Kernel>(r),
    );
  }

  getKernel(id: string): Kernel {
    const k = this.kernel(id);
    if (!k) throw errors.notFound();
    return k;
  }

  /**
   * Public images, plus the caller's private images when its token may read images (a restricted
   * user: those it holds a grant on), plus the shared images of the share groups its account is
   * an active member of (every user of the account: grants name only the account's own images).
   */
  private imageAccount(p: Principal | undefined): number | undefined {
    return p && grantsScope(p.scopes, 'images:read_only') ? p.accountId : undefined;
  }

  listImages(p: Principal | undefined, params: PageParams, xf: XFilter): Promise<Page<Image>> {
    const accountId = this.imageAccount(p);
    const visible =
      p && accountId !== undefined ? authz.visible(p, 'image', 'images.private_id') : undefined;
    const sharedVisible = this.sharedVisible;
    const base = this.db.db.selectFrom('images').where((eb) => {
      if (accountId === undefined) return eb('images.account_id', 'is', null);
      const own = eb.and([
        eb('images.account_id', '=', accountId),
        eb('images.share_id', 'is', null),
        ...(visible ? [visible] : []),
      ]);
      const ways: Expression<SqlBool>[] = [eb('images.account_id', 'is', null), own];
      if (sharedVisible) ways.push(sharedVisible(accountId, 'images.share_id'));
      return eb.or(ways);
    });
    return paginate(
      base,
      (qb) => qb.select('images.data'),
      compileFilter(xf, IMAGE_FILTERS, this.db.dialect),
      params,
      // As the real service lists them: the account's own images first, then public ones; by id
      // within each (`private/…` before `shared/…`).
      { idColumn: 'images.id', leading: ['images.is_public'] },
      imageOf,
    );
  }

  /**
   * A public image, a private image of the caller's account it holds a grant on, or a shared
   * image of a group its account is a member of.
   */
  async getImage(p: Principal | undefined, id: string): Promise<Image> {
    refuseUnserved(`/v4/images/${id}`);
    const row = await this.imageRow(id, this.imageAccount(p), true);
    if (!row) throw errors.notFound();
    if (p && row.private_id !== null && row.private_id !== undefined)
      await authz.requireEntity(this.db, p, 'image', row.private_id, 'read_only');
    return imageOf(row);
  }
}
