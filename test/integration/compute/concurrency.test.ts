import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

describe('concurrent instance creates', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('createComputeInstance: 50 concurrent creates get 50 distinct public and private addresses, none lost', async () => {
    const replies = await Promise.all(
      Array.from({ length: 50 }, () =>
        t.post('/v4/compute/instances', {
          region: 'us-east',
          type: 'g6-nanode-1',
          private_ip: true,
        }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(50).fill(200));
    const { db } = t.ctx;
    const instances = await db.db.selectFrom('instances').select('id').execute();
    expect(instances).toHaveLength(50);
    const rows = await db.db.selectFrom('ip_addresses').selectAll().execute();
    expect(rows).toHaveLength(100);
    const pub = rows.filter((r) => r.kind === 'public').map((r) => r.address);
    const priv = rows.filter((r) => r.kind === 'private').map((r) => r.address);
    expect(new Set(pub).size).toBe(50);
    expect(new Set(priv).size).toBe(50);
    expect(new Set(rows.map((r) => r.instance_id)).size).toBe(50);
    // Every reply shows the addresses that were stored for it.
    const stored = new Set(rows.map((r) => r.address));
    expect(replies.flatMap((r) => r.body.ipv4).every((a: string) => stored.has(a))).toBe(true);
    expect(new Set(replies.map((r) => r.body.ipv6)).size).toBe(50);
  });
});
