import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
    for (const a of r.body.data as { region: string; unavailable: string[] }[]) {
      const caps = regions.find((x) => x.id === a.region)?.capabilities ?? [];
      for (const s of a.unavailable) expect(caps).not.toContain(s);
    }
    const partial = r.body.data.find((a: { region: string }) => a.region === 'ap-southeast');
    expect(partial.unavailable).toEqual(['Block Storage']);
    expect((await t.get('/v4/account/availability')).body).toEqual(r.body);
  });

  it('getAccountAvailability: one region; an unknown one is 404', async () => {
    const r = await t.get('/v4beta/account/availability/us-east');
    expect(r.body).toEqual({ region: 'us-east', unavailable: [] });
    const none = await t.get('/v4beta/account/availability/eu-south');
    expect(none.body.unavailable).toEqual([
      'Computes',
      'NodeBalancers',
      'Block Storage',
      'Kubernetes',
    ]);
    expect((await t.get('/v4beta/account/availability/mars-1')).status).toBe(404);
  });
});
