import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { createVolume, op, operatorToken, secondAccount, sshKey } from './helpers.js';

describe('emulator controls: snapshots', () => {
  let t: TestApp;
  let token: string;
  beforeEach(async () => {
    t = await buildTestApp();
    token = await operatorToken(t);
  });
  afterEach(async () => {
    await t.close();
  });

  it('exportSnapshot: one versioned document without the catalogue or the controls', async () => {
    await createVolume(t, 'v1');
    const r = await op(t, token).get('/_stratus/snapshot?bytes=false');
    expect(r.status, r.text).toBe(200);
    const s = r.body;
    expect(s.format).toBe('stratus-snapshot');
    expect(s.version).toBe(2);
    expect(s.blobs).toBe('omitted');
    expect(s.migrations).toContain('0013-emulator-controls');
    expect(s.tables.volumes.rows).toHaveLength(1);
    expect(s.tables.accounts.rows).toHaveLength(1);
    for (const name of [
      'regions',
      'types',
      'kernels',
      'region_availability',
      'emulator_settings',
    ]) {
      expect(s.tables[name], name).toBeUndefined();
    }
    expect(s.tables.images.rows).toEqual([]);
    expect(JSON.stringify(s)).not.toContain(t.admin.token);
  });

  it('importSnapshot: the state comes back whole; ids are not reused; catalogue unchanged', async () => {
    const other = await secondAccount(t);
    const v1 = await createVolume(t, 'v1');
    await createVolume(t, 'v2', other.token);
    await sshKey(t, 'k1');
    await t.settle();
    const saved = (await op(t, token).get('/_stratus/snapshot?bytes=false')).body;
    const volumes = (await t.get('/v4/volumes')).body;
    const events = (await t.get('/v4/account/events')).body;
    const regions = (await t.get('/v4/regions')).body;

    // Change everything: delete, create, reset.
    expect((await t.del(`/v4/volumes/${v1}`)).status).toBe(200);
    const v3 = await createVolume(t, 'v3');
    await t.settle();
    expect((await t.get('/v4/account/events')).body).not.toEqual(events);

    const r = await op(t, token).post('/_stratus/snapshot', saved);
    expect(r.status, r.text).toBe(200);
    expect(r.body.rows).toBeGreaterThan(0);
    expect((await t.get('/v4/volumes')).body).toEqual(volumes);
    // The feed page cached before the import is not served: it shows the snapshot's events.
    expect((await t.get('/v4/account/events')).body).toEqual(events);
    expect((await t.get('/v4/profile/sshkeys')).body.results).toBe(1);
    expect((await t.get('/v4/volumes', { token: other.token })).body.results).toBe(1);
    expect((await t.get('/v4/regions')).body).toEqual(regions);
    // v3's id was handed out after the snapshot; the next volume gets a later one still.
    const v4 = await createVolume(t, 'v4');
    expect(v4).toBeGreaterThan(v3);

    // Export again: the same rows as the file imported (but the new volume and its events).
    const again = (await op(t, token).get('/_stratus/snapshot?bytes=false')).body;
    expect(again.tables.accounts).toEqual(saved.tables.accounts);
    expect(again.tables.tokens).toEqual(saved.tables.tokens);
  });

  it('importSnapshot: a snapshot from a newer format is refused with a clear message, nothing changes', async () => {
    await createVolume(t, 'keep');
    const saved = (await op(t, token).get('/_stratus/snapshot?bytes=false')).body;
    const r = await op(t, token).post('/_stratus/snapshot', { ...saved, version: 3, tables: {} });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].field).toBe('version');
    expect(r.body.errors[0].reason).toMatch(/newer Stratus.*Upgrade Stratus/);
    expect((await t.get('/v4/volumes')).body.results).toBe(1);
  });

  it('importSnapshot: unknown migrations, tables or columns are refused before anything changes', async () => {
    await createVolume(t, 'keep');
    const saved = (await op(t, token).get('/_stratus/snapshot?bytes=false')).body;
    const bad = [
      [{ ...saved, migrations: [...saved.migrations, '9999-future'] }, 'migrations'],
      [{ ...saved, tables: { ...saved.tables, nope: { columns: [], rows: [] } } }, 'tables.nope'],
      [
        {
          ...saved,
          tables: { ...saved.tables, volumes: { columns: ['id', 'zzz'], rows: [[1, 2]] } },
        },
        'tables.volumes.columns',
      ],
      [
        { ...saved, tables: { ...saved.tables, volumes: { columns: ['id'], rows: [[1, 2]] } } },
        'tables.volumes.rows',
      ],
      [{ hello: 'world' }, 'format'],
    ] as const;
    for (const [body, field] of bad) {
      const r = await op(t, token).post('/_stratus/snapshot', body);
      expect(r.status, field).toBe(400);
      expect(r.body.errors[0].field).toBe(field);
    }
    expect((await t.get('/v4/volumes')).body.results).toBe(1);
    expect((await op(t, token).post('/_stratus/snapshot')).status).toBe(400);
  });

  it('importSnapshot: rows the database refuses are a 400 naming the table and the cause, not a 500; nothing changes', async () => {
    await createVolume(t, 'keep');
    const saved = (await op(t, token).get('/_stratus/snapshot?bytes=false')).body;
    const vols = saved.tables.volumes as { columns: string[]; rows: unknown[][] };
    // The same volume twice: a duplicate primary key.
    const dup = {
      ...saved,
      tables: { ...saved.tables, volumes: { ...vols, rows: [vols.rows[0], vols.rows[0]] } },
    };
    await createVolume(t, 'later');
    const before = (await t.get('/v4/volumes')).body;
    const r = await op(t, token).post('/_stratus/snapshot', dup);
    expect(r.status, r.text).toBe(400);
    expect(r.body.errors).toEqual([
      {
        field: 'tables.volumes',
        reason: expect.stringMatching(
          /^The snapshot's rows were refused by the database: .+\. Nothing was imported\.$/,
        ),
      },
    ]);
    // A missing value where the table needs one.
    const label = vols.columns.indexOf('label');
    const row = [...(vols.rows[0] as unknown[])];
    row[label] = null;
    const nulled = { ...saved, tables: { ...saved.tables, volumes: { ...vols, rows: [row] } } };
    const n = await op(t, token).post('/_stratus/snapshot', nulled);
    expect(n.status, n.text).toBe(400);
    expect(n.body.errors[0].field).toBe('tables.volumes');
    expect((await t.get('/v4/volumes')).body).toEqual(before);
  });

  it('importSnapshot: tables the code does not list travel too', async () => {
    await sql`create table zz_area (id integer primary key, account_id integer, v text)`.execute(
      t.ctx.db.db,
    );
    await sql`insert into zz_area (id, account_id, v) values (7, 1, 'kept')`.execute(t.ctx.db.db);
    const saved = (await op(t, token).get('/_stratus/snapshot?bytes=false')).body;
    expect(saved.tables.zz_area.rows).toEqual([[7, 1, 'kept']]);
    await sql`delete from zz_area`.execute(t.ctx.db.db);
    expect((await op(t, token).post('/_stratus/snapshot', saved)).status).toBe(200);
    const rows = await sql<{ v: string }>`select v from zz_area`.execute(t.ctx.db.db);
    expect(rows.rows).toEqual([{ v: 'kept' }]);
  });

  it('importSnapshot: tokens deleted after the export work again; tokens created after it stop', async () => {
    const saved = (await op(t, token).get('/_stratus/snapshot?bytes=false')).body;
    const other = await secondAccount(t, 'later');
    expect((await t.get('/v4/profile', { token: other.token })).status).toBe(200);
    expect((await op(t, token).post('/_stratus/snapshot', saved)).status).toBe(200);
    expect((await t.get('/v4/profile', { token: other.token })).status).toBe(401);
    expect((await t.get('/v4/profile')).status).toBe(200);
  });
});

describe('emulator controls: snapshots across engines', () => {
  it('importSnapshot: a snapshot written on SQLite imports into this engine whole', async () => {
    const { createContext } = await import('../../../src/context.js');
    const { envToConfig } = await import('../../../src/config/config.js');
    const { buildApp } = await import('../../../src/app.js');
    const { bootstrapAccount } = await import('../../../src/modules/identity/bootstrap.js');
    const src = await createContext(
      envToConfig({
        DATABASE_URL: 'sqlite::memory:',
        LOG_LEVEL: 'silent',
        STRATUS_RATE_LIMITS: 'off',
      }),
    );
    const t = await buildTestApp();
    try {
      const owner = await bootstrapAccount(src.db, src.clock, {
        email: 'lite@example.com',
        username: 'lite',
        token: 'lite-token-0123456789',
      });
      const app = await buildApp(src);
      const made = await app.inject({
        method: 'POST',
        url: '/v4/volumes',
        headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ label: 'from-sqlite', region: 'us-east', size: 40 }),
      });
      expect(made.statusCode, made.body).toBe(200);
      await src.runner.runDue();
      const snap = await src.state.exportSnapshot();
      await app.close();

      const token = await operatorToken(t);
      const r = await op(t, token).post('/_stratus/snapshot', snap);
      expect(r.status, r.text).toBe(200);
      const vols = await t.get('/v4/volumes', { token: 'lite-token-0123456789' });
      expect(vols.status).toBe(200);
      expect(vols.body.data.map((v: { label: string; size: number }) => [v.label, v.size])).toEqual(
        [['from-sqlite', 40]],
      );
      const events = await t.get('/v4/account/events', { token: 'lite-token-0123456789' });
      expect(events.body.data.map((e: { action: string }) => e.action)).toContain('volume_create');
      // The test app's own account is gone: the snapshot is the whole state.
      expect((await t.get('/v4/profile')).status).toBe(401);
    } finally {
      await src.db.close();
      await t.close();
    }
  });
});
