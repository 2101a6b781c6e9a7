import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

describe('account availability', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('getAvailability: every region of the catalogue, with the services its capabilities lack (v4beta and v4)', async () => {
    const regions = (await t.get('/v4/regions')).body.data as {
      id: string;
      capabilities: string[];
    }[];
    const r = await t.get('/v4beta/account/availability');
    expect(r.status).toBe(200);
    expect(r.body.results).toBe(regions.length);
    expect(r.body.data.map((a: { region: string }) => a.region)).toEqual(regions.map((x) => x.id));
    for (const a of r.body.data as {
      region: string;
      available: string[];
      unavailable: string[];
    }[]) {
      const caps = regions.find((x) => x.id === a.region)?.capabilities ?? [];
      for (const s of a.unavailable) expect(caps).not.toContain(s);
      for (const s of a.available) expect(caps).toContain(s);
      expect(a.available.length + a.unavailable.length).toBe(4);
    }
    const partial = r.body.data.find((a: { region: string }) => a.region === 'ap-southeast');
    expect(partial.unavailable).toEqual(['Block Storage']);
    expect(partial.available).toEqual(['Computes', 'NodeBalancers', 'Kubernetes']);
    expect((await t.get('/v4/account/availability')).body).toEqual(r.body);
  });

  it('getAccountAvailability: one region; an unknown one is 404', async () => {
    const r = await t.get('/v4beta/account/availability/us-east');
    expect(r.body).toEqual({
      region: 'us-east',
      available: ['Computes', 'NodeBalancers', 'Block Storage', 'Kubernetes'],
      unavailable: [],
    });
    const none = await t.get('/v4beta/account/availability/eu-south');
    expect(none.body.unavailable).toEqual([
      'Computes',
      'NodeBalancers',
      'Block Storage',
      'Kubernetes',
    ]);
    expect(none.body.available).toEqual([]);
    expect((await t.get('/v4beta/account/availability/mars-1')).status).toBe(404);
  });

  it('getAvailability: needs account:read_only (a volumes:read_only token is refused)', async () => {
    const { token } = await createTestUser(t, { restricted: false, scopes: 'volumes:read_only' });
    for (const url of ['/v4beta/account/availability', '/v4/account/availability/us-east']) {
      const r = await t.get(url, { token });
      expect(r.status, url).toBe(401);
      expect(r.headers['x-accepted-oauth-scopes']).toBe('account:read_only');
    }
    const ok = await createTestUser(t, { restricted: false, scopes: 'account:read_only' });
    expect((await t.get('/v4beta/account/availability', { token: ok.token })).status).toBe(200);
  });

  it('getRegions: every region carries site_type, monitors and placement group limits', async () => {
    const r = await t.get('/v4/regions', { token: null });
    for (const region of r.body.data) {
      // Distributed sites are named `-edge-` as recorded; every other region is a core one.
      expect(region.site_type).toBe(region.id.includes('-edge-') ? 'distributed' : 'core');
      expect(region.monitors).toEqual({ alerts: [], metrics: [] });
      expect(region.placement_group_limits).toMatchObject({ maximum_computes_per_pg: 5 });
    }
    expect((await t.get('/v4/regions/us-east', { token: null })).body.site_type).toBe('core');
  });
});
