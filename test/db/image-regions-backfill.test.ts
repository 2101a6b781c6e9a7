import { describe, expect, it } from 'vitest';
import * as m0046 from '../../src/db/migrations/0046-image-regions.js';
import { buildTestApp } from '../helpers/build-test-app.js';
import { capturedImage, gzippedImage, putUpload } from '../integration/images/fixtures.js';

describe('migration 0046-image-regions', () => {
  it('migrate: available images get one replica (upload region or their instance region) and the new fields', async () => {
    const t = await buildTestApp();
    try {
      const db = t.ctx.db;
      const ctx = { db: db.db as never, dialect: db.dialect };
      const captured = await capturedImage(t);
      const up = await t.post('/v4/images/upload', { region: 'eu-central', label: 'up' });
      await putUpload(t, up.body.upload_to, gzippedImage(2));
      const pending = await t.post('/v4/images/upload', { region: 'us-central', label: 'later' });
      await m0046.down(ctx);
      // As before 0046: captured images had no region, and listings no replica fields.
      await db.db
        .updateTable('private_images')
        .set({ region: null })
        .where('source_instance_id', 'is not', null)
        .execute();
      const rows = await db.db.selectFrom('images').select(['id', 'data']).execute();
      for (const r of rows) {
        const { regions, total_size, is_shared, image_sharing, ...old } = JSON.parse(r.data);
        await db.db
          .updateTable('images')
          .set({ data: JSON.stringify(old) })
          .where('id', '=', r.id)
          .execute();
      }
      await m0046.up(ctx);
      expect((await t.get(`/v4/images/${captured.id}`)).body).toMatchObject({
        regions: [{ region: 'us-east', status: 'available' }],
        total_size: 2000,
        is_shared: false,
        image_sharing: { shared_by: null },
      });
      expect((await t.get(`/v4/images/${up.body.image.id}`)).body).toMatchObject({
        regions: [{ region: 'eu-central', status: 'available' }],
        total_size: 2,
      });
      expect((await t.get(`/v4/images/${pending.body.image.id}`)).body).toMatchObject({
        regions: [],
        total_size: 0,
      });
    } finally {
      await t.close();
    }
  });
});
