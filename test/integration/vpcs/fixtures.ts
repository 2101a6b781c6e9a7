import { expect } from 'vitest';
import type { TestApp } from '../../helpers/build-test-app.js';

export const STRONG = 's3cr3t-P4ssw0rd!';
/** A region with the VPCs capability. */
export const REGION = 'us-iad';

let n = 0;

/**
 * A dual-stack VPC (a /52) with a dual-stack /62 subnet (`dual`, its range `dualRange`) and an
 * IPv4-only subnet (`v4`).
 */
export async function dualStackVpc(t: TestApp, region = REGION) {
  const r = await t.post('/v4/vpcs', {
    label: `dual-${++n}`,
    region,
    ipv6: [{ range: '/52' }],
    subnets: [
      { label: 'd', ipv4: '10.0.0.0/24', ipv6: [{ range: '/62' }] },
      { label: 'v4', ipv4: '10.0.1.0/24' },
    ],
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return {
    id: r.body.id as number,
    dual: r.body.subnets[0].id as number,
    dualRange: r.body.subnets[0].ipv6[0].range as string,
    v4: r.body.subnets[1].id as number,
  };
}

/** A VPC created through the API, with subnets given as [label, ipv4]. */
export async function vpc(
  t: TestApp,
  subnets: [string, string][] = [['s1', '10.0.0.0/24']],
  o: { label?: string; region?: string; token?: string } = {},
) {
  const r = await t.post(
    '/v4/vpcs',
    {
      label: o.label ?? `vpc-${++n}`,
      region: o.region ?? REGION,
      subnets: subnets.map(([label, ipv4]) => ({ label, ipv4 })),
    },
    o.token ? { token: o.token } : {},
  );
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as {
    id: number;
    label: string;
    region: string;
    subnets: { id: number; label: string; ipv4: string }[];
  };
}

/** An instance deployed from an image in REGION with the given interfaces, settled. */
export async function instanceWith(
  t: TestApp,
  interfaces: unknown[],
  o: { booted?: boolean; region?: string } = {},
) {
  const r = await t.post('/v4/compute/instances', {
    region: o.region ?? REGION,
    type: 'g6-nanode-1',
    image: 'compute/debian12',
    root_pass: STRONG,
    booted: o.booted ?? false,
    interfaces,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  await t.settle();
  const id = r.body.id as number;
  const config = (await t.get(`/v4/compute/instances/${id}/configs`)).body.data[0].id as number;
  return {
    id,
    config,
    ipv4: r.body.ipv4 as string[],
    url: `/v4/compute/instances/${id}/configs/${config}/interfaces`,
  };
}

/** Events of the account with these actions, oldest first. */
export async function eventsOf(t: TestApp, actions: string[]) {
  const r = await t.get('/v4/account/events', {
    filter: { '+or': actions.map((action) => ({ action })), '+order_by': 'id', '+order': 'asc' },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data as {
    action: string;
    status: string;
    entity: { id: number; type: string; label: string; url: string };
    secondary_entity: { id: number; type: string; label: string; url: string } | null;
  }[];
}
