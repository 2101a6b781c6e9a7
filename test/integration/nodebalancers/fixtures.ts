import { expect } from 'vitest';
import type { TestApp } from '../../helpers/build-test-app.js';
import { STRONG } from '../volumes/fixtures.js';

export interface ApiNb {
  id: number;
  label: string;
  region: string;
  ipv4: string;
  ipv6: string | null;
  hostname: string;
  tags: string[];
}

/** A NodeBalancer created through the API (us-east unless said otherwise). */
export async function nodebalancer(
  t: TestApp,
  body: Record<string, unknown> = {},
  token?: string,
): Promise<ApiNb> {
  const r = await t.post(
    '/v4/nodebalancers',
    { region: 'us-east', ...body },
    token ? { token } : {},
  );
  expect(r.status, r.text).toBe(200);
  return r.body;
}

/** A running instance with a private IPv4 address (a backend), settled. */
export async function backend(
  t: TestApp,
  o: { region?: string; token?: string } = {},
): Promise<{ id: number; ip: string }> {
  const r = await t.post(
    '/v4/compute/instances',
    {
      region: o.region ?? 'us-east',
      type: 'g6-nanode-1',
      image: 'compute/debian12',
      root_pass: STRONG,
      private_ip: true,
    },
    o.token ? { token: o.token } : {},
  );
  expect(r.status, r.text).toBe(200);
  await t.settle();
  const row = await t.ctx.db.db
    .selectFrom('ip_addresses')
    .select('address')
    .where('instance_id', '=', r.body.id)
    .where('kind', '=', 'private')
    .executeTakeFirstOrThrow();
  return { id: r.body.id, ip: row.address };
}

/** The events of a NodeBalancer, oldest first, as [action, status]. */
export async function nbEvents(t: TestApp, id: number): Promise<string[][]> {
  const r = await t.get('/v4/account/events', {
    filter: { 'entity.type': 'nodebalancer', 'entity.id': id, '+order_by': 'id', '+order': 'asc' },
  });
  expect(r.status).toBe(200);
  return (r.body.data as { action: string; status: string }[]).map((e) => [e.action, e.status]);
}
