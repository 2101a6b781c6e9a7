import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNSERVED_AREAS, UnservedRouter } from '../../../src/http/unserved.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

describe('areas of the API this server does not serve', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('unserved areas: 501 naming the area, in the error format, for every method and /v4beta', async () => {
    const cases: [string, string, string][] = [
      ['GET', '/v4/lke/clusters', 'Kubernetes (LKE)'],
      ['POST', '/v4/lke/clusters', 'Kubernetes (LKE)'],
      ['DELETE', '/v4beta/lke/clusters/123/pools/9', 'Kubernetes (LKE)'],
      ['GET', '/v4/databases/mysql/instances/7/credentials', 'Managed Databases'],
      ['GET', '/v4/databases/engines', 'Managed Databases'],
      [
        'GET',
        '/v4/monitor/services/dbaas/metric-definitions',
        'Monitoring (metrics, alerts, dashboards and log streams)',
      ],
      ['POST', '/v4/iam/users/alice/role-permissions', 'Identity and access (IAM roles)'],
    ];
    for (const [method, url, name] of cases) {
      const r = await t.request(method, url, method === 'POST' ? { body: {} } : {});
      expect(r.status, `${method} ${url}`).toBe(501);
      expect(r.body).toEqual({
        errors: [{ reason: `The ${name} area is not provided by this server.` }],
      });
    }
  });

  it('unserved areas: a path no area has stays a plain 404; served paths are untouched', async () => {
    for (const url of [
      '/v4/lke/nonsense',
      '/v4/lke/clusters/1/unknown',
      '/v4/nothing-here',
      '/lke/clusters',
    ]) {
      const r = await t.get(url);
      expect(r.status, url).toBe(404);
      expect(r.body).toEqual({ errors: [{ reason: 'Not found' }] });
    }
    expect((await t.get('/v4/volumes')).status).toBe(200);
    expect((await t.get('/v4/images')).status).toBe(200);
    // NodeBalancer VPC configurations are served: an unknown NodeBalancer is a plain 404.
    const nbVpcs = await t.get('/v4/nodebalancers/999/vpcs');
    expect(nbVpcs.status).toBe(404);
    expect(nbVpcs.body).toEqual({ errors: [{ reason: 'Not found' }] });
    // A served path with another method is still a 405.
    expect((await t.request('PATCH', '/v4/volumes')).status).toBe(405);
  });

  it('UnservedRouter: every listed path of every area resolves to its area, and none is served', async () => {
    const doc = (await t.get('/v4/openapi.json', { token: null })).body as {
      paths: Record<string, unknown>;
    };
    const served = new Set(Object.keys(doc.paths).map((p) => p.replace(/\{[^}]+\}/g, '{}')));
    const router = new UnservedRouter();
    for (const area of UNSERVED_AREAS) {
      for (const p of area.paths) {
        expect(served.has(p.replace(/\{[^}]+\}/g, '{}')), p).toBe(false);
        expect(router.find(`/v4${p.replace(/\{[^}]+\}/g, '42')}`)?.name, p).toBe(area.name);
      }
    }
  });
});
