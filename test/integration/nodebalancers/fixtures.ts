import { expect } from 'vitest';
import type { TestApp } from '../../helpers/build-test-app.js';

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

/** The private IPv4 address of an instance (instances get one on create in this project). */
export async function privateIp(t: TestApp, computeId: number): Promise<string> {
  const row = await t.ctx.db.db
    .selectFrom('ip_addresses')
    .select('address')
    .where('instance_id', '=', computeId)
    .where('kind', '=', 'private')
    .executeTakeFirst();
  if (row) return row.address;
  const r = await t.post(`/v4/compute/instances/${computeId}/ips`, { type: 'ipv4', public: false });
  expect(r.status, r.text).toBe(200);
  return r.body.address;
}

/** The events of a NodeBalancer, oldest first, as [action, status]. */
export async function nbEvents(t: TestApp, id: number): Promise<string[][]> {
  const r = await t.get('/v4/account/events', {
    filter: { 'entity.type': 'nodebalancer', 'entity.id': id, '+order_by': 'id', '+order': 'asc' },
  });
  expect(r.status).toBe(200);
  return (r.body.data as { action: string; status: string }[]).map((e) => [e.action, e.status]);
}
