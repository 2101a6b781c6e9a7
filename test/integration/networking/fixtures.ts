import { expect } from 'vitest';
import type { TestApp } from '../../helpers/build-test-app.js';

export const STRONG = 's3cr3t-P4ssw0rd!';

export const fieldsOf = (r: { body: { errors: { field?: string }[] } }) =>
  r.body.errors.map((e) => e.field).sort();

/** An instance created through the API and settled (running). */
export async function instance(
  t: TestApp,
  o: { region?: string; token?: string; label?: string; extra?: Record<string, unknown> } = {},
): Promise<{ id: number; label: string; region: string; ipv4: string[]; ipv6: string }> {
  const r = await t.post(
    '/v4/compute/instances',
    {
      region: o.region ?? 'us-east',
      type: 'g6-nanode-1',
      image: 'compute/debian12',
      root_pass: STRONG,
      ...(o.label ? { label: o.label } : {}),
      ...(o.extra ?? {}),
    },
    o.token ? { token: o.token } : {},
  );
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  await t.settle();
  return r.body;
}

export const RULES = {
  inbound_policy: 'DROP',
  outbound_policy: 'ACCEPT',
  inbound: [
    {
      protocol: 'TCP',
      ports: '22, 80',
      addresses: { ipv4: ['0.0.0.0/0'], ipv6: ['::/0'] },
      action: 'ACCEPT',
      label: 'ssh-web',
    },
  ],
  outbound: [],
};

/** A firewall created through the API. */
export async function firewall(
  t: TestApp,
  body: Record<string, unknown> = {},
  token?: string,
): Promise<{ id: number; label: string; status: string; rules: { fingerprint: string } }> {
  const r = await t.post(
    '/v4/networking/firewalls',
    { label: `fw-${Math.floor(Math.random() * 1e9)}`, rules: RULES, ...body },
    token ? { token } : {},
  );
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

/** The events of an entity type (and id), oldest first. */
export async function eventsOf(t: TestApp, type: string, id?: number) {
  const r = await t.get('/v4/account/events', {
    filter: {
      'entity.type': type,
      ...(id !== undefined ? { 'entity.id': id } : {}),
      '+order_by': 'id',
      '+order': 'asc',
    },
  });
  expect(r.status).toBe(200);
  return r.body.data as {
    action: string;
    status: string;
    entity: { id: number; type: string; label: string; url: string };
    secondary_entity: { id: number; type: string; label: string; url: string } | null;
  }[];
}

/** Puts an instance into a state directly (migrations are another area). */
export async function setStatus(t: TestApp, id: number, status: string): Promise<void> {
  await t.ctx.db.db
    .updateTable('instances')
    .set({ status: status as 'running' })
    .where('id', '=', id)
    .execute();
}
