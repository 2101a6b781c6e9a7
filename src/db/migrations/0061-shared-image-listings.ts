import { sql } from 'kysely';
import type { MigrationContext } from './helpers.js';

/**
 * Shared images in the image lists: each share group entry (`shared/<n>`) gets a listed record in
 * `images` (`share_id` = the entry), which member accounts of the group see in `GET /images` and
 * `GET /images/shared/<n>`. Existing entries get theirs here, as a member sees them
 * (`source_image_id: null`).
 */
export async function up({ db }: MigrationContext): Promise<void> {
  await db.schema.alterTable('images').addColumn('share_id', 'integer').execute();
  await db.schema.createIndex('images_share_idx').on('images').column('share_id').execute();

  const shares = await sql<{
    id: number;
    label: string;
    description: string;
    created: string;
    updated: string | null;
    group_id: number;
    group_uuid: string;
    group_label: string;
    account_id: number;
    image_id: number;
    size: number;
    status: string;
    cloud_init: number;
  }>`select s.id, s.label, s.description, s.created, s.updated, g.id as group_id,
        g.uuid as group_uuid, g.label as group_label, g.account_id, p.id as image_id, p.size,
        p.status, p.cloud_init
      from image_shares s
      join image_share_groups g on g.id = s.group_id
      join private_images p on p.id = s.image_id
      order by s.id`.execute(db);
  for (const s of shares.rows) {
    const replicas = await sql<{ region: string; status: string }>`
        select region, status from image_regions where image_id = ${s.image_id}
        order by id`.execute(db);
    const id = `shared/${s.id}`;
    const size = Number(s.size);
    const data = {
      id,
      label: s.label,
      description: s.description,
      created: s.created,
      updated: s.updated ?? s.created,
      created_by: null,
      deprecated: false,
      is_public: false,
      size,
      total_size: size * replicas.rows.filter((r) => r.status === 'available').length,
      type: 'shared',
      expiry: null,
      eol: null,
      vendor: null,
      status: s.status,
      capabilities: Number(s.cloud_init) === 1 ? ['cloud-init'] : [],
      tags: [],
      regions: replicas.rows.map((r) => ({ region: r.region, status: r.status })),
      is_shared: null,
      image_sharing: {
        shared_with: null,
        shared_by: {
          sharegroup_id: Number(s.group_id),
          sharegroup_uuid: s.group_uuid,
          sharegroup_label: s.group_label,
          source_image_id: null,
        },
      },
    };
    await sql`insert into images
        (id, account_id, label, deprecated, is_public, size, type, vendor, status, created, data,
         private_id, share_id)
        values (${id}, ${s.account_id}, ${s.label}, 0, 0, ${size}, 'shared', null, ${s.status},
          ${s.created}, ${JSON.stringify(data)}, null, ${s.id})`.execute(db);
  }
}

export async function down({ db }: MigrationContext): Promise<void> {
  await sql`delete from images where share_id is not null`.execute(db);
  await db.schema.dropIndex('images_share_idx').ifExists().execute();
  await db.schema.alterTable('images').dropColumn('share_id').execute();
}
