import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { attach, instance, volume } from '../volumes/fixtures.js';

/**
 * Real SDKs send actions without a body, with their HTTP library's default Content-Type or none.
 * An empty body is accepted whatever its type; only a non-empty body that is not JSON is a 415.
 */
const EMPTY_VARIANTS: { name: string; headers: Record<string, string>; payload?: string }[] = [
  { name: 'no Content-Type, no body', headers: {} },
  { name: 'no Content-Type, Content-Length: 0', headers: { 'content-length': '0' }, payload: '' },
  {
    name: 'application/x-www-form-urlencoded, empty',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: '',
  },
  { name: 'text/plain, empty', headers: { 'content-type': 'text/plain' }, payload: '' },
  {
    name: 'application/json, Content-Length: 0',
    headers: { 'content-type': 'application/json', 'content-length': '0' },
    payload: '',
  },
];

describe('actions without a body', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const send = async (url: string, v: (typeof EMPTY_VARIANTS)[number]) => {
    const res = await t.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${t.admin.token}`, ...v.headers },
      ...(v.payload !== undefined ? { payload: v.payload } : {}),
    });
    return { status: res.statusCode, body: res.body };
  };
  const status = async (id: number) =>
    (await t.get(`/v4/compute/instances/${id}`)).body.status as string;

  for (const v of EMPTY_VARIANTS) {
    it(`shutdownComputeInstance, bootComputeInstance, rebootComputeInstance: ${v.name} is accepted and acts`, async () => {
      const inst = await instance(t);
      expect(await status(inst.id)).toBe('running');

      const down = await send(`/v4/compute/instances/${inst.id}/shutdown`, v);
      expect(down.status, down.body).toBe(200);
      await t.settle();
      expect(await status(inst.id)).toBe('offline');

      const up = await send(`/v4/compute/instances/${inst.id}/boot`, v);
      expect(up.status, up.body).toBe(200);
      await t.settle();
      expect(await status(inst.id)).toBe('running');

      const again = await send(`/v4/compute/instances/${inst.id}/reboot`, v);
      expect(again.status, again.body).toBe(200);
      await t.settle();
      const events = await t.get('/v4/account/events', {
        filter: { 'entity.id': inst.id, action: 'compute_reboot' },
      });
      expect(events.body.results).toBe(1);
    });

    it(`detachVolume: ${v.name} is accepted and detaches`, async () => {
      const inst = await instance(t);
      const vol = await volume(t);
      await t.settle();
      expect((await attach(t, vol.id, { compute_id: inst.id })).status).toBe(200);
      await t.settle();
      const r = await send(`/v4/volumes/${vol.id}/detach`, v);
      expect(r.status, r.body).toBe(200);
      await t.settle();
      expect((await t.get(`/v4/volumes/${vol.id}`)).body.compute_id).toBeNull();
    });
  }

  it('shutdownComputeInstance: a non-empty body that is not JSON is a 415', async () => {
    const inst = await instance(t);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const r = await send(`/v4/compute/instances/${inst.id}/shutdown`, {
        name: type,
        headers: { 'content-type': type },
        payload: 'a=1',
      });
      expect(r.status).toBe(415);
      expect(JSON.parse(r.body).errors[0].reason).toMatch(/Content-Type/i);
    }
    expect(await status(inst.id)).toBe('running');
  });

  it('every POST operation: an empty body is never refused for its Content-Type', async () => {
    const doc = (await t.get('/v4/openapi.json', { token: null })).body as {
      paths: Record<string, Record<string, { parameters?: { in: string; name: string }[] }>>;
    };
    const posts = Object.entries(doc.paths).flatMap(([path, ops]) =>
      ops.post
        ? [
            (ops.post.parameters ?? [])
              .filter((p) => p.in === 'path')
              .reduce((url, p) => url.replace(`{${p.name}}`, '999999'), `/v4${path}`),
          ]
        : [],
    );
    expect(posts.length).toBeGreaterThan(15);
    for (const url of posts) {
      for (const v of EMPTY_VARIANTS) {
        const r = await send(url, v);
        expect(r.status, `${url} ${v.name}: ${r.body}`).not.toBe(415);
        expect(r.body, `${url} ${v.name}`).not.toMatch(/Malformed JSON/);
      }
    }
  });
});
