import type { Database } from '../../db/database.js';
import type { EntitySummary } from '../../entities/entities.js';
import type { Image } from '../catalogue/catalogue.data.js';
import type { EntityRef } from '../events/events.types.js';
import { tagsOf } from '../tags/tags.repository.js';
import type { ImageReplicaStatus, PrivateImagesTable } from './images.table.js';

export type PrivateImageRow = Omit<PrivateImagesTable, 'id'> & { id: number };

const PRIVATE_ID = /^private\/([1-9][0-9]{0,9})$/;

export const privateImageId = (id: number) => `private/${id}`;

/** The path under which Stratus serves upload URLs (outside /v4: the URL is the credential). */
export const UPLOAD_PATH = '/_stratus/image-uploads';

export const imageRef = (id: number, label: string | null): EntityRef => ({
  type: 'image',
  id,
  label,
  url: `/v4/images/private/${id}`,
});

/** The number in `private/<n>` (undefined for any other id). */
export function parsePrivateImageId(id: string): number | undefined {
  const m = PRIVATE_ID.exec(id);
  const n = m ? Number(m[1]) : Number.NaN;
  return Number.isSafeInteger(n) && n <= 2_147_483_647 ? n : undefined;
}

/** A replica of a private image as the API shows it. */
export interface ImageReplica {
  region: string;
  status: ImageReplicaStatus;
}

/** An image's record as the API shows it, from its row, tags and replicas. */
export function toApiImage(
  row: PrivateImageRow,
  tags: string[],
  replicas: ImageReplica[] = [],
  sharegroupCount = 0,
): Image & { tags: string[] } {
  const id = privateImageId(row.id);
  return {
    id,
    label: row.label,
    description: row.description,
    created: row.created,
    updated: row.updated,
    created_by: row.created_by,
    deprecated: false,
    is_public: false,
    size: row.size,
    type: 'manual',
    expiry: null,
    eol: null,
    vendor: null,
    status: row.status,
    capabilities: row.cloud_init ? ['cloud-init'] : [],
    tags,
    regions: replicas.map((r) => ({ region: r.region, status: r.status })),
    // `size` once at least: an image not replicated (yet) is stored once (the Python SDK's suite,
    // from the real service: `size == total_size` on the answer of `POST /images`).
    total_size: row.size * Math.max(1, replicas.filter((r) => r.status === 'available').length),
    // Shared in a share group (image-sharing area): the groups' count.
    is_shared: sharegroupCount > 0,
    image_sharing: {
      shared_with: {
        sharegroup_count: sharegroupCount,
        sharegroup_list_url: `/images/${id}/sharegroups`,
      },
      shared_by: null,
    },
  };
}

/** A share group entry (`image_shares`) with its group, as a shared image's record needs it. */
export interface ShareOfImage {
  id: number;
  label: string;
  description: string;
  created: string;
  updated: string | null;
  group: { id: number; uuid: string; label: string };
}

/**
 * A shared image `shared/<n>`: the image's record with the entry's own label and description,
 * `type: shared`, no tags, `is_shared: null` and `image_sharing.shared_by` naming the group. The
 * source image (`private/<n>`) is shown to its producer only (`null` in a member's view).
 */
export function toSharedImage(
  img: PrivateImageRow,
  replicas: ImageReplica[],
  share: ShareOfImage,
  producer: boolean,
) {
  return {
    id: `shared/${share.id}`,
    label: share.label,
    description: share.description,
    created: share.created,
    updated: share.updated,
    created_by: null,
    deprecated: false,
    is_public: false,
    size: img.size,
    total_size: img.size * replicas.filter((r) => r.status === 'available').length,
    type: 'shared',
    expiry: null,
    eol: null,
    vendor: null,
    status: img.status,
    capabilities: img.cloud_init ? ['cloud-init'] : [],
    tags: [] as string[],
    regions: replicas.map((r) => ({ region: r.region, status: r.status })),
    is_shared: null,
    image_sharing: {
      shared_with: null,
      shared_by: {
        sharegroup_id: share.group.id,
        sharegroup_uuid: share.group.uuid,
        sharegroup_label: share.group.label,
        source_image_id: producer ? privateImageId(img.id) : null,
      },
    },
  };
}

/** The share group entries of an image, a group or one entry, with their groups. */
export async function sharesWith(
  db: Database,
  by: { imageId: number } | { groupId: number } | { shareId: number },
): Promise<(ShareOfImage & { imageId: number; accountId: number })[]> {
  let q = db.db
    .selectFrom('image_shares as s')
    .innerJoin('image_share_groups as g', 'g.id', 's.group_id')
    .select([
      's.id',
      's.label',
      's.description',
      's.created',
      's.updated',
      's.image_id',
      'g.id as group_id',
      'g.uuid',
      'g.label as group_label',
      'g.account_id',
    ]);
  if ('imageId' in by) q = q.where('s.image_id', '=', by.imageId);
  else if ('groupId' in by) q = q.where('s.group_id', '=', by.groupId);
  else q = q.where('s.id', '=', by.shareId);
  const rows = await q.orderBy('s.id').execute();
  return rows.map((r) => ({
    id: r.id,
    label: r.label,
    description: r.description,
    created: r.created,
    updated: r.updated,
    imageId: r.image_id,
    accountId: r.account_id,
    group: { id: r.group_id, uuid: r.uuid, label: r.group_label },
  }));
}

/**
 * Rewrites the listed records (`images` rows `shared/<n>`, `share_id` = n) of share group
 * entries, as the group's members see them in `GET /images`: from the entry, its group and the
 * source image. Entries whose source image is gone lose their record.
 */
export async function syncSharedListings(
  db: Database,
  by: { imageId: number } | { groupId: number } | { shareId: number },
): Promise<void> {
  const shares = await sharesWith(db, by);
  const images = new Map<number, { row: PrivateImageRow; replicas: ImageReplica[] } | null>();
  for (const share of shares) {
    let source = images.get(share.imageId);
    if (source === undefined) {
      const row = await db.db
        .selectFrom('private_images')
        .selectAll()
        .where('id', '=', share.imageId)
        .executeTakeFirst();
      source = row ? { row, replicas: await replicasOf(db, row.id) } : null;
      images.set(share.imageId, source);
    }
    if (!source) {
      await db.db.deleteFrom('images').where('id', '=', `shared/${share.id}`).execute();
      continue;
    }
    // The image lists' `updated` is never null: an entry not changed since shared shows `created`.
    const api = {
      ...toSharedImage(source.row, source.replicas, share, false),
      updated: share.updated ?? share.created,
    };
    await writeListing(db, api, share.accountId, { private_id: null, share_id: share.id });
  }
}

/**
 * (Re)writes the listed record of an account's image in `images` (what `GET /images` pages
 * and filters in SQL): a private image (`private_id`) or a share group entry (`share_id`).
 */
async function writeListing(
  db: Database,
  api: Pick<Image, 'id' | 'label' | 'size' | 'type' | 'status' | 'created'>,
  accountId: number,
  source: { private_id: number; share_id?: null } | { private_id: null; share_id: number },
): Promise<void> {
  await db.db.deleteFrom('images').where('id', '=', api.id).execute();
  await db.db
    .insertInto('images')
    .values({
      id: api.id,
      account_id: accountId,
      ...source,
      label: api.label,
      deprecated: 0,
      is_public: 0,
      size: api.size,
      type: api.type,
      vendor: null,
      status: api.status,
      created: api.created,
      data: JSON.stringify(api),
    })
    .execute();
}

/** Removes the listed records of share group entries (the entries are being removed). */
export async function dropSharedListings(db: Database, shareIds: number[]): Promise<void> {
  if (shareIds.length === 0) return;
  await db.db.deleteFrom('images').where('share_id', 'in', shareIds).execute();
}

/** The replicas of a private image, in the order they were added. */
export async function replicasOf(db: Database, imageId: number): Promise<ImageReplica[]> {
  return db.db
    .selectFrom('image_regions')
    .select(['region', 'status'])
    .where('image_id', '=', imageId)
    .orderBy('id')
    .execute();
}

/** Inserts a private image of `accountId` with the given state; the rest takes its defaults. */
export async function insertPrivateImage(
  db: Database,
  accountId: number,
  fields: Pick<PrivateImageRow, 'label' | 'status' | 'created_by'> &
    Partial<Omit<PrivateImageRow, 'id' | 'account_id' | 'created' | 'updated'>>,
  nowIso: string,
): Promise<number> {
  const { id } = await db.db
    .insertInto('private_images')
    .values({
      description: null,
      size: 0,
      cloud_init: 0,
      region: null,
      source_instance_id: null,
      source_disk_id: null,
      filesystem: 'raw',
      upload_token_hash: null,
      upload_expires: null,
      upload_event_id: null,
      stored_bytes: 0,
      ...fields,
      account_id: accountId,
      created: nowIso,
      updated: nowIso,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

export async function findPrivateImage(
  db: Database,
  accountId: number,
  id: number,
  lock = false,
): Promise<PrivateImageRow | undefined> {
  const q = db.db
    .selectFrom('private_images')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId);
  return (lock ? db.forUpdate(q) : q).executeTakeFirst();
}

/**
 * Writes the image's listed record (the `images` row `private/<id>`) from its own row, so that
 * lists of public and private images are filtered and paged together in SQL.
 */
export async function syncListing(db: Database, id: number): Promise<Image & { tags: string[] }> {
  const row = await db.db
    .selectFrom('private_images')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  const groups = await db.db
    .selectFrom('image_shares')
    .select((eb) => eb.fn.count<number | string>('group_id').distinct().as('n'))
    .where('image_id', '=', id)
    .executeTakeFirst();
  const api = toApiImage(
    row,
    (await tagsOf(db, 'image', [id])).get(id) ?? [],
    await replicasOf(db, id),
    Number(groups?.n ?? 0),
  );
  await writeListing(db, api, row.account_id, { private_id: row.id });
  // The image's share group entries, as members list them, follow it.
  await syncSharedListings(db, { imageId: id });
  return api;
}

export async function deletePrivateImage(db: Database, id: number): Promise<void> {
  // Its share group entries go with it (their rows cascade), and so do their listed records.
  await dropSharedListings(
    db,
    (await sharesWith(db, { imageId: id })).map((s) => s.id),
  );
  await db.db.deleteFrom('images').where('id', '=', privateImageId(id)).execute();
  await db.db.deleteFrom('image_regions').where('image_id', '=', id).execute();
  await db.db.deleteFrom('private_images').where('id', '=', id).execute();
}

/** Every private image of an account (grants views and checks). */
export async function imageLabels(db: Database, accountId: number): Promise<EntitySummary[]> {
  return db.db
    .selectFrom('private_images')
    .select(['id', 'label'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
}

/** MB of image storage an account uses: each private image's size times its available replicas. */
export async function imageStorageMb(db: Database, accountId: number): Promise<number> {
  const row = await db.db
    .selectFrom('image_regions')
    .innerJoin('private_images', 'private_images.id', 'image_regions.image_id')
    .select((eb) => eb.fn.sum<number | string | null>('private_images.size').as('mb'))
    .where('private_images.account_id', '=', accountId)
    .where('image_regions.status', '=', 'available')
    .executeTakeFirst();
  return Number(row?.mb ?? 0);
}
