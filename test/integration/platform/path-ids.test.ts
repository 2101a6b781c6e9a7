import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCanonicalId } from '../../../src/http/path-ids.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

/** Spellings of the id 1 that are not canonical decimal digits, as they appear in a URL path. */
const LOOSE = ['%201', '1e0', '0x1', '%2B1', '1.0', '01', '1%20', '-1', '%091', '1_0', '１'];

describe('integer path ids', () => {
  let t: TestApp;
  let volumeId: number;
  let tokenId: number;
  beforeAll(async () => {
    t = await buildTestApp();
    const v = await t.post('/v4/volumes', { label: 'v1', region: 'us-east' });
    volumeId = v.body.id;
    tokenId = (await t.post('/v4/profile/tokens', { label: 'keep' })).body.id;
    expect(volumeId).toBe(1);
  });
  afterAll(async () => {
    await t.close();
  });

  it('isCanonicalId: decimal digits without a leading zero, within the id range', () => {
    for (const ok of ['0', '1', '42', '2147483647']) expect(isCanonicalId(ok), ok).toBe(true);
    for (const bad of [
      '',
      ' 1',
      '1 ',
      '+1',
      '-1',
      '1e0',
      '0x1',
      '1.0',
      '01',
      '00',
      '2147483648',
      '99999999999999999999',
    ]) {
      expect(isCanonicalId(bad), bad).toBe(false);
    }
  });

  it('getVolume: only /volumes/1 names volume 1; every loose spelling is a 404', async () => {
    expect((await t.get('/v4/volumes/1')).status).toBe(200);
    for (const id of LOOSE) {
      const r = await t.get(`/v4/volumes/${id}`);
      expect(r.status, id).toBe(404);
      expect(r.body, id).toEqual({ errors: [{ reason: 'Not found' }] });
    }
  });

  it('deletePersonalAccessToken: a loose id revokes nothing', async () => {
    for (const id of LOOSE.map((s) => s.replace('1', String(tokenId)))) {
      expect((await t.del(`/v4/profile/tokens/${id}`)).status, id).toBe(404);
    }
    expect((await t.get(`/v4/profile/tokens/${tokenId}`)).status).toBe(200);
  });

  it('every operation with an integer path id: a loose id is a 404, an out-of-range one too', async () => {
    const doc = (await t.get('/v4/openapi.json', { token: null })).body as {
      paths: Record<
        string,
        Record<string, { parameters?: { in: string; name: string; schema?: { type?: string } }[] }>
      >;
    };
    let checked = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const params = (op.parameters ?? []).filter((p) => p.in === 'path');
        if (!params.some((p) => p.schema?.type === 'integer')) continue;
        for (const bad of ['01', '1e0', '%201', '2147483648']) {
          const url = params.reduce(
            (u, p) => u.replace(`{${p.name}}`, p.schema?.type === 'integer' ? bad : 'x'),
            `/v4${path}`,
          );
          const r = await t.request(method.toUpperCase(), url);
          expect(r.status, `${method} ${url}`).toBe(404);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    // Nothing was touched: the volume and the token are still there.
    expect((await t.get('/v4/volumes/1')).status).toBe(200);
    expect((await t.get(`/v4/profile/tokens/${tokenId}`)).status).toBe(200);
  });
});
