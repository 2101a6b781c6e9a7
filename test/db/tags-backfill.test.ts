import { describe, expect, it } from 'vitest';
import * as m0012 from '../../src/db/migrations/0012-tags-nodebalancers.js';
import { bootstrapAccount } from '../../src/modules/identity/bootstrap.js';
import { buildTestApp } from '../helpers/build-test-app.js';

describe('migration 0012-tags-nodebalancers', () => {
  it('migrate: tags already set on entities become tags of their account, once each', async () => {
    const t = await buildTestApp();
    try {
      const db = t.ctx.db;
      const ctx = { db: db.db as never, dialect: db.dialect };
      await m0012.down(ctx);
      const other = await bootstrapAccount(db, t.clock, { email: 'b@example.com', username: 'b' });
      const a = t.admin.accountId;
      await db.db
        .insertInto('entity_tags')
        .values([
          { account_id: a, entity_type: 'compute', entity_id: 1, tag: 'web' },
          { account_id: a, entity_type: 'volume', entity_id: 2, tag: 'web' },
          { account_id: a, entity_type: 'volume', entity_id: 2, tag: 'db' },
          { account_id: other.accountId, entity_type: 'compute', entity_id: 3, tag: 'web' },
        ])
        .execute();
      await m0012.up(ctx);
      const rows = await db.db
        .selectFrom('tags')
        .select(['account_id', 'label'])
        .orderBy('account_id')
        .orderBy('label')
        .execute();
      expect(rows).toEqual([
        { account_id: a, label: 'db' },
        { account_id: a, label: 'web' },
        { account_id: other.accountId, label: 'web' },
      ]);
      expect((await t.get('/v4/tags')).body.data).toEqual([{ label: 'db' }, { label: 'web' }]);
    } finally {
      await t.close();
    }
  });
});
