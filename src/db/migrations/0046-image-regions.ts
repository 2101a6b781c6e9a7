import { sql } from 'kysely';
import { type MigrationContext, notNull, withId } from './helpers.js';

/**
 * Image replicas: `image_regions` holds each region a private image is stored in, with the
 * replica's status (`pending replication`, `replicating`, `available`, `pending deletion`).
 * `private_images.region` now holds the image's first region for captured images too (their
 * instance's region). Existing available images get their one replica, and every private image's
 * listed record is rewritten with `regions`, `total_size`, `is_shared` and `image_sharing`.
 */
export async function up({ db, dialect }: MigrationContext): Promise<void> {
  await withId(db.schema.createTable('image_regions'), dialect)
    .addColumn('image_id', 'integer', (c) =>
      c.notNull().references('private_images.id').onDelete('cascade'),
    )
    .addColumn('region', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .addUniqueConstraint('image_regions_uq', ['image_id', 'region'])
    .execute();

  // Captured images: the region of the instance they were captured from (when it still exists).
  await sql`update private_images set region = (
      select instances.region from instances where instances.id = private_images.source_instance_id
    ) where region is null`.execute(db);
  await sql`insert into image_regions (image_id, region, status, created)
      select id, region, 'available', updated from private_images
      where status = 'available' and region is not null order by id`.execute(db);

  const rows = await sql<{ id: string; data: string; private_id: number }>`
      select images.id, images.data, images.private_id from images
      where images.private_id is not null`.execute(db);
  for (const r of rows.rows) {
    const replicas = await sql<{ region: string; status: string }>`
        select region, status from image_regions where image_id = ${r.private_id}
        order by id`.execute(db);
    const data = JSON.parse(r.data) as Record<string, unknown>;
    const available = replicas.rows.filter((x) => x.status === 'available').length;
    data.regions = replicas.rows.map((x) => ({ region: x.region, status: x.status }));
    data.total_size = Number(data.size ?? 0) * available;
    data.is_shared = false;
    data.image_sharing = {
      shared_with: { sharegroup_count: 0, sharegroup_list_url: `/images/${r.id}/sharegroups` },
      shared_by: null,
    };
    await sql`update images set data = ${JSON.stringify(data)} where id = ${r.id}`.execute(db);
  }
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropTable('image_regions').ifExists().execute();
}
