import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GRANT_TYPES } from '../../../src/auth/authz.js';
import { EVENT_ENTITY_TYPES } from '../../../src/modules/events/events.types.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { instance, volume } from '../volumes/fixtures.js';

/**
 * Every grant type the reference names, with the operation that creates an entity of it: once
 * that operation exists, its area exists and must have declared the grant type.
 */
const CREATE_OPERATION: Record<string, string> = {
  compute: 'post /compute/instances',
  volume: 'post /volumes',
  firewall: 'post /networking/firewalls',
  vpc: 'post /vpcs',
  image: 'post /images',
  stackscript: 'post /compute/stackscripts',
  nodebalancer: 'post /nodebalancers',
  domain: 'post /domains',
  longview: 'post /longview/clients',
  database: 'post /databases/mysql/instances',
  lkecluster: 'post /lke/clusters',
};

describe('grant types and entity declarations', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('updateUserGrants: every grant type whose area exists is declared, so its entities can be granted', async () => {
    const doc = (await t.get('/v4/openapi.json', { token: null })).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = new Set(
      Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m} ${path}`),
      ),
    );
    const missing: string[] = [];
    const present: string[] = [];
    for (const [type, op] of Object.entries(CREATE_OPERATION)) {
      if (!operations.has(op)) continue;
      present.push(type);
      if (!t.ctx.entities.forGrant(type as never)) missing.push(type);
    }
    expect(missing).toEqual([]);
    expect(present).toEqual(expect.arrayContaining(['compute', 'volume']));
    // Every grant type Stratus knows is one the reference names.
    for (const g of GRANT_TYPES) expect(Object.keys(CREATE_OPERATION)).toContain(g);
  });

  it('entity declarations: every declared type has an event type of the reference, a /v4 URL, and lists only its own account', async () => {
    const inst = await instance(t);
    const vol = await volume(t);
    const other = await createTestUser(t, { restricted: false });
    expect(other).toBeDefined();
    for (const d of t.ctx.entities.all()) {
      expect(EVENT_ENTITY_TYPES as readonly string[], d.type).toContain(d.type);
      expect(d.url(7), d.type).toMatch(/^\/v4\/[a-z/-]+\/7$/);
      expect(await d.list(t.ctx.db, t.admin.accountId + 1000), d.type).toEqual([]);
    }
    expect(await t.ctx.entities.grantable(t.ctx.db, t.admin.accountId, 'compute')).toEqual([
      { id: inst.id, label: inst.label },
    ]);
    expect(await t.ctx.entities.grantable(t.ctx.db, t.admin.accountId, 'volume')).toEqual([
      { id: vol.id, label: vol.label },
    ]);
  });

  it('updateUserGrants: a volume of the account can be granted; one of another account cannot', async () => {
    const vol = await volume(t);
    const u = await createTestUser(t);
    const ok = await t.put(`/v4/account/users/${u.username}/grants`, {
      volume: [{ id: vol.id, permissions: 'read_only' }],
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.volume).toEqual([{ id: vol.id, label: vol.label, permissions: 'read_only' }]);
    const bad = await t.put(`/v4/account/users/${u.username}/grants`, {
      volume: [{ id: vol.id + 100, permissions: 'read_only' }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('volume.0.id');
  });

  describe('a restricted user with a volume grant', () => {
    const setup = async (permissions: 'read_only' | 'read_write') => {
      const mine = await volume(t, { label: 'granted' });
      const other = await volume(t, { label: 'hidden' });
      await t.settle();
      const u = await createTestUser(t);
      const r = await t.put(`/v4/account/users/${u.username}/grants`, {
        volume: [{ id: mine.id, permissions }],
      });
      expect(r.status).toBe(200);
      return { u, mine, other };
    };

    it('getVolumes: lists exactly the granted volume; getVolume views it and 404s the other', async () => {
      const { u, mine, other } = await setup('read_only');
      const list = await t.get('/v4/volumes', { token: u.token });
      expect(list.body.data.map((v: { id: number }) => v.id)).toEqual([mine.id]);
      expect(list.body.results).toBe(1);
      expect((await t.get(`/v4/volumes/${mine.id}`, { token: u.token })).status).toBe(200);
      expect((await t.get(`/v4/volumes/${other.id}`, { token: u.token })).status).toBe(404);
    });

    it('updateVolume: read_only is a 403 and changes nothing; read_write updates', async () => {
      const ro = await setup('read_only');
      const denied = await t.put(
        `/v4/volumes/${ro.mine.id}`,
        { label: 'renamed' },
        { token: ro.u.token },
      );
      expect(denied.status).toBe(403);
      expect((await t.get(`/v4/volumes/${ro.mine.id}`)).body.label).toBe('granted');

      const rw = await createTestUser(t);
      await t.put(`/v4/account/users/${rw.username}/grants`, {
        volume: [{ id: ro.mine.id, permissions: 'read_write' }],
      });
      const ok = await t.put(
        `/v4/volumes/${ro.mine.id}`,
        { label: 'renamed' },
        { token: rw.token },
      );
      expect(ok.status).toBe(200);
      expect(ok.body.label).toBe('renamed');
    });

    it("getEvents: shows the granted volume's events and no other volume's", async () => {
      const { u, mine, other } = await setup('read_only');
      const events = await t.get('/v4/account/events', { token: u.token });
      expect(events.status).toBe(200);
      const volumeEvents = events.body.data.filter(
        (e: { entity: { type: string } | null }) => e.entity?.type === 'volume',
      );
      expect(volumeEvents.length).toBeGreaterThan(0);
      expect(new Set(volumeEvents.map((e: { entity: { id: number } }) => e.entity.id))).toEqual(
        new Set([mine.id]),
      );
      expect(
        (await t.get('/v4/account/events', { token: t.admin.token })).body.data.some(
          (e: { entity: { id: number; type: string } | null }) =>
            e.entity?.type === 'volume' && e.entity.id === other.id,
        ),
      ).toBe(true);
    });
  });
});
