import { expect } from 'vitest';
import type { TestApp } from '../../helpers/build-test-app.js';

export const STRONG = 's3cr3t-P4ssw0rd!';

/** An interface of the new generation as the API shows it (the fields the tests read). */
export type Iface = {
  id: number;
  public: { ipv4: { addresses: { address: string; primary: boolean }[] } } | null;
  vpc: {
    vpc_id: number;
    subnet_id: number;
    ipv4: {
      addresses: { address: string; nat_1_1_address: string | null }[];
      ranges: { range: string }[];
    };
  } | null;
  vlan: { vlan_label: string; ipam_address: string | null } | null;
  default_route: { ipv4?: boolean; ipv6?: boolean };
};

/** An instance in us-iad (not booted), made and settled; `body` adds to or overrides the defaults. */
export async function createInstance(t: TestApp, body: Record<string, unknown>) {
  const r = await t.post('/v4/compute/instances', {
    region: 'us-iad',
    type: 'g6-nanode-1',
    image: 'compute/debian12',
    root_pass: STRONG,
    booted: false,
    ...body,
  });
  expect(r.status, r.text).toBe(200);
  await t.settle();
  return r.body as { id: number; ipv4: string[] };
}
