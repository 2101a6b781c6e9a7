import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, inject, it } from 'vitest';
import { Database } from '../../src/db/database.js';
import { migrateDownAll, migrateTo, migrateToLatest } from '../../src/db/migrator.js';
import { DIALECT } from '../helpers/build-test-app.js';
import { createDatabase, dropDatabase } from '../helpers/pg-server.js';
import { FakeClock } from '../../src/lib/clock.js';
import { bootstrapAccount } from '../../src/modules/identity/bootstrap.js';
import { insertPrivateImage } from '../../src/modules/images/images.repository.js';

async function tableNames(db: Database): Promise<string[]> {
  const q =
    db.dialect === 'postgres'
      ? sql<{
          name: string;
        }>`select table_name as name from information_schema.tables where table_schema = 'public'`
      : sql<{
          name: string;
        }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`;
  return (await q.execute(db.db)).rows.map((r) => r.name).sort();
}

/** An empty database of the suite's engine (in memory on SQLite) and how to drop it. */
async function emptyDatabase(): Promise<{ db: Database; drop: () => Promise<void> }> {
  if (DIALECT !== 'postgres')
    return { db: Database.connect('sqlite::memory:', { poolSize: 1 }), drop: async () => {} };
  const admin = inject('pgAdminUrl');
  const name = `m_${randomBytes(4).toString('hex')}`;
  const db = Database.connect(await createDatabase(admin, name), { poolSize: 1 });
  return { db, drop: () => dropDatabase(admin, name) };
}

describe('migrations', () => {
  it('migrate: every migration goes up, down and up again on an empty database', async () => {
    const { db, drop } = await emptyDatabase();
    try {
      const applied = await migrateToLatest(db.db, db.dialect);
      expect(applied.length).toBeGreaterThan(0);
      const full = await tableNames(db);
      expect(full).toEqual(
        expect.arrayContaining(['accounts', 'events', 'jobs', 'instances', 'volumes']),
      );
      await migrateDownAll(db.db, db.dialect);
      expect((await tableNames(db)).filter((t) => !t.startsWith('stratus_migrations'))).toEqual([]);
      expect(await migrateToLatest(db.db, db.dialect)).toEqual(applied);
      expect(await tableNames(db)).toEqual(full);
      expect(await migrateToLatest(db.db, db.dialect)).toEqual([]);
    } finally {
      await db.close();
      await drop();
    }
  });

  it("migrate 0007, 0022: events stored with the old entity types get the reference's names, then the wire's disk", async () => {
    const { db, drop } = await emptyDatabase();
    try {
      await migrateTo(db.db, db.dialect, '0006-event-feeds');
      const text = ['euuid', 'email', 'company', 'first_name', 'last_name', 'address_1']
        .concat(['address_2', 'city', 'state', 'zip', 'country', 'phone', 'tax_id'])
        .concat(['billing_source', 'capabilities', 'active_since', 'object_storage', 'created']);
      const account = await db.db
        .insertInto('accounts')
        .values(
          Object.fromEntries(text.map((c) => [c, c === 'capabilities' ? '[]' : 'x'])) as never,
        )
        .returning('id')
        .executeTakeFirstOrThrow();
      const event = (action: string, type: string, secondary: string | null) => ({
        account_id: account.id,
        action,
        created: '2026-03-01T12:00:00',
        entity_type: type,
        secondary_entity_type: secondary,
        read: 0,
        seen: 0,
        status: 'notification',
      });
      await db.db
        .insertInto('events')
        .values([
          event('user_ssh_key_add', 'ssh_key', null),
          event('disk_create', 'compute', 'disk'),
          event('volume_create', 'volume', null),
        ])
        .execute();
      const rows = () =>
        db.db
          .selectFrom('events')
          .select(['action', 'entity_type', 'secondary_entity_type'])
          .orderBy('id')
          .execute();
      await migrateTo(db.db, db.dialect, '0021-live-wire');
      expect(await rows()).toEqual([
        { action: 'user_ssh_key_add', entity_type: 'user_ssh_key', secondary_entity_type: null },
        { action: 'disk_create', entity_type: 'compute', secondary_entity_type: 'disks' },
        { action: 'volume_create', entity_type: 'volume', secondary_entity_type: null },
      ]);
      await migrateToLatest(db.db, db.dialect);
      expect(await rows()).toEqual([
        { action: 'user_ssh_key_add', entity_type: 'user_ssh_key', secondary_entity_type: null },
        { action: 'disk_create', entity_type: 'compute', secondary_entity_type: 'disk' },
        { action: 'volume_create', entity_type: 'volume', secondary_entity_type: null },
      ]);
    } finally {
      await db.close();
      await drop();
    }
  });

  it('migrate 0061: existing share group entries get the listed record a member sees', async () => {
    const { db, drop } = await emptyDatabase();
    try {
      await migrateTo(db.db, db.dialect, '0056-feed-read-jobs');
      const owner = await bootstrapAccount(db, new FakeClock(), {
        email: 'p@example.com',
        username: 'p',
      });
      const now = '2026-03-01T12:00:00';
      const imageId = await insertPrivateImage(
        db,
        owner.accountId,
        { label: 'golden', status: 'available', created_by: 'p', size: 2000, cloud_init: 1 },
        now,
      );
      await db.db
        .insertInto('image_regions')
        .values({ image_id: imageId, region: 'us-east', status: 'available', created: now })
        .execute();
      const group = await db.db
        .insertInto('image_share_groups')
        .values({
          account_id: owner.accountId,
          uuid: '0ee8e1c1-b19b-4052-9487-e3b13faac111',
          label: 'group',
          description: '',
          created: now,
          updated: null,
          expiry: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const share = await db.db
        .insertInto('image_shares')
        .values({
          group_id: group.id,
          image_id: imageId,
          label: 'for members',
          description: 'd',
          created: now,
          updated: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await migrateToLatest(db.db, db.dialect);
      const row = await db.db
        .selectFrom('images')
        .selectAll()
        .where('share_id', '=', share.id)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({
        id: `shared/${share.id}`,
        account_id: owner.accountId,
        private_id: null,
        is_public: 0,
        type: 'shared',
        label: 'for members',
        status: 'available',
      });
      expect(JSON.parse(row.data)).toMatchObject({
        id: `shared/${share.id}`,
        updated: now,
        created_by: null,
        is_shared: null,
        total_size: 2000,
        capabilities: ['cloud-init'],
        regions: [{ region: 'us-east', status: 'available' }],
        image_sharing: {
          shared_with: null,
          shared_by: { sharegroup_id: group.id, sharegroup_label: 'group', source_image_id: null },
        },
      });
    } finally {
      await db.close();
      await drop();
    }
  });

  it('migrate 0054: existing OAuth clients and their authorized apps are kept when a client may belong to no account', async () => {
    const { db, drop } = await emptyDatabase();
    try {
      await migrateTo(db.db, db.dialect, '0020-oauth-security');
      const owner = await bootstrapAccount(db, new FakeClock(), {
        email: 'o@example.com',
        username: 'o',
      });
      const client = await db.db
        .insertInto('oauth_clients')
        .values({
          client_id: 'c0ffee00c0ffee00c0ff',
          account_id: owner.accountId,
          label: 'Existing app',
          redirect_uri: 'https://app.example.com/cb',
          public: 0,
          status: 'active',
          secret_hash: 'ab'.repeat(32),
          thumbnail: null,
          thumbnail_type: null,
          created: '2026-03-01T12:00:00',
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const user = await db.db.selectFrom('users').select('id').executeTakeFirstOrThrow();
      await db.db
        .insertInto('oauth_apps')
        .values({
          account_id: owner.accountId,
          user_id: user.id,
          client_pk: client.id,
          scopes: '*',
          created: '2026-03-01T12:00:00',
          expiry: null,
        })
        .execute();
      await migrateToLatest(db.db, db.dialect);
      const clients = await db.db
        .selectFrom('oauth_clients')
        .select(['client_id', 'account_id', 'redirect_uri'])
        .orderBy('client_id')
        .execute();
      expect(clients).toEqual([
        {
          client_id: 'c0ffee00c0ffee00c0ff',
          account_id: owner.accountId,
          redirect_uri: 'https://app.example.com/cb',
        },
        { client_id: 'stratus-console', account_id: null, redirect_uri: '/console/callback' },
      ]);
      expect(await db.db.selectFrom('oauth_apps').select('client_pk').execute()).toEqual([
        { client_pk: client.id },
      ]);
      // The rebuilt table is still the parent of its apps: deleting the client removes them.
      await db.db.deleteFrom('oauth_clients').where('id', '=', client.id).execute();
      expect(await db.db.selectFrom('oauth_apps').selectAll().execute()).toEqual([]);
    } finally {
      await db.close();
      await drop();
    }
  });
});
