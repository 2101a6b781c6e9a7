import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

describe('platform smoke', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('getProfile: answers the token owner', async () => {
    const r = await t.get('/v4/profile');
    expect(r.status).toBe(200);
    expect(r.body.username).toBe('owner');
  });

  it('getComputeTypes: pages the catalogue with the default page size', async () => {
    const r = await t.get('/v4/compute/types', { token: null });
    expect(r.status).toBe(200);
    expect(r.body.page).toBe(1);
    expect(r.body.results).toBe(r.body.data.length);
    expect(r.body.pages).toBe(1);
  });
});
