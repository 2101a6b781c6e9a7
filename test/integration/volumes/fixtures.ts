import { expect } from 'vitest';
import {
  insertConfig,
  DEFAULT_HELPERS,
  emptyDevices,
} from '../../../src/modules/compute/compute.repository.js';
import { isoSeconds } from '../../../src/lib/time.js';
import type { TestApp } from '../../helpers/build-test-app.js';

export const STRONG = 's3cr3t-P4ssw0rd!';

/**
 * An instance created through the API and settled. With an image it has one config whose sda
 * and sdb hold the boot and swap disks, so six slots are free; `empty` gives no disks, no configs.
 */
export async function instance(
  t: TestApp,
  type = 'g6-nanode-1',
  o: { region?: string; empty?: boolean; booted?: boolean; token?: string } = {},
): Promise<{ id: number; label: string; region: string }> {
  const body = o.empty
    ? { region: o.region ?? 'us-east', type }
    : {
        region: o.region ?? 'us-east',
        type,
        image: 'compute/debian12',
        root_pass: STRONG,
        ...(o.booted === undefined ? {} : { booted: o.booted }),
      };
  const r = await t.post('/v4/compute/instances', body, o.token ? { token: o.token } : {});
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  await t.settle();
  return r.body;
}

/** A volume created through the API (not settled). */
export async function volume(t: TestApp, body: Record<string, unknown> = {}, token?: string) {
  const r = await t.post(
    '/v4/volumes',
    { label: `vol${Math.floor(Math.random() * 1e9)}`, region: 'us-east', ...body },
    token ? { token } : {},
  );
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as {
    id: number;
    label: string;
    region: string;
    size: number;
    status: string;
    hardware_type: string;
  };
}

/** n active, unattached volumes in a region. */
export async function volumes(t: TestApp, n: number, region = 'us-east'): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) ids.push((await volume(t, { label: `v${i}`, region })).id);
  await t.settle();
  return ids;
}

/** The configs of an instance, with their devices parsed. */
export async function configs(t: TestApp, computeId: number) {
  const rows = await t.ctx.db.db
    .selectFrom('configs')
    .selectAll()
    .where('instance_id', '=', computeId)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ id: r.id, devices: JSON.parse(r.devices) as Record<string, unknown> }));
}

/** Adds a config with no devices to an instance, directly (the configs endpoints are another area). */
export async function addConfig(t: TestApp, computeId: number): Promise<number> {
  const db = t.ctx.db;
  return insertConfig(
    db,
    {
      instanceId: computeId,
      accountId: t.admin.accountId,
      label: `extra-${Math.floor(Math.random() * 1e6)}`,
      kernel: 'compute/latest-64bit',
      comments: '',
      memoryLimit: 0,
      runLevel: 'default',
      virtMode: 'paravirt',
      rootDevice: '/dev/sda',
      helpers: DEFAULT_HELPERS,
      devices: emptyDevices(),
    },
    isoSeconds(t.clock.nowMs()),
  );
}

/** The events of a volume, oldest first. */
export async function volumeEvents(t: TestApp, id: number, action?: string) {
  const r = await t.get('/v4/account/events', {
    filter: {
      'entity.type': 'volume',
      'entity.id': id,
      ...(action ? { action } : {}),
      '+order_by': 'id',
      '+order': 'asc',
    },
  });
  expect(r.status).toBe(200);
  return r.body.data as {
    action: string;
    status: string;
    percent_complete: number | null;
    entity: { id: number; type: string; label: string };
    secondary_entity: { id: number; type: string; label: string } | null;
  }[];
}

export const attach = (
  t: TestApp,
  volumeId: number,
  body: Record<string, unknown>,
  token?: string,
) => t.post(`/v4/volumes/${volumeId}/attach`, body, token ? { token } : {});
