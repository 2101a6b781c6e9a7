import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EVENT_ENTITY_TYPES,
  EXTRA_EVENT_ENTITY_TYPES,
} from '../../../src/modules/events/events.types.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { sshKey } from '../identity/fixtures.js';
import { attach, instance, volume } from '../volumes/fixtures.js';

const reference = JSON.parse(
  readFileSync(new URL('../../fixtures/reference/openapi.json', import.meta.url), 'utf8'),
) as {
  components: {
    schemas: { Event: { properties: { entity: { properties: { type: { enum: string[] } } } } } };
  };
};
const REFERENCE_TYPES = reference.components.schemas.Event.properties.entity.properties.type.enum;
/** Types the reference lists as having no id. */
const WITHOUT_ID = new Set(['account', 'profile']);

describe('event entity references', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it("EVENT_ENTITY_TYPES: is the reference's enum, value for value", () => {
    expect([...EVENT_ENTITY_TYPES].sort()).toEqual([...REFERENCE_TYPES].sort());
  });

  it('getEvents: after a tour of every built area, every entity.type is in the enum and every id an integer', async () => {
    const inst = await instance(t);
    const ips = `/v4/compute/instances/${inst.id}/ips`;
    const view = (await t.get(ips)).body;
    expect((await t.post(ips, { type: 'ipv4', public: true })).status).toBe(200);
    expect(
      (await t.put(`${ips}/${view.ipv4.public[0].address}`, { rdns: 'a.example.com' })).status,
    ).toBe(200);
    const slaac = view.ipv6.slaac.address;
    expect((await t.put(`${ips}/${slaac}`, { rdns: 'v6.example.com' })).status).toBe(200);
    const bare = await instance(t, 'g6-nanode-1', { empty: true });
    const disk = await t.post(`/v4/compute/instances/${bare.id}/disks`, { label: 'd', size: 10 });
    expect(disk.status, JSON.stringify(disk.body)).toBe(200);
    await t.settle();
    expect((await t.post(`/v4/compute/instances/${inst.id}/shutdown`)).status).toBe(200);
    await t.settle();
    const vol = await volume(t);
    await t.settle();
    expect((await attach(t, vol.id, { compute_id: inst.id })).status).toBe(200);
    await t.settle();
    expect(
      (await t.post('/v4/profile/sshkeys', { label: 'k', ssh_key: sshKey('ed25519') })).status,
    ).toBe(200);
    expect((await t.post('/v4/profile/tokens', { label: 'tok' })).status).toBe(200);
    const u = await t.post('/v4/account/users', { username: 'tourist', email: 't@example.com' });
    expect(u.status).toBe(200);
    expect((await t.put('/v4/account', { city: 'Lisbon' })).status).toBe(200);
    await createTestUser(t);

    const rows = await t.ctx.db.db.selectFrom('events').selectAll().execute();
    expect(rows.length).toBeGreaterThan(10);
    const seen = new Set<string>();
    for (const r of rows) {
      for (const [type, id] of [
        [r.entity_type, r.entity_id],
        [r.secondary_entity_type, r.secondary_entity_id],
      ] as const) {
        if (type === null) continue;
        seen.add(type);
        expect([...REFERENCE_TYPES, ...EXTRA_EVENT_ENTITY_TYPES], `${r.action}: ${type}`).toContain(
          type,
        );
        if (WITHOUT_ID.has(type)) continue;
        // A public image's id is a string, given by its URL (the wire: `compute/debian12`).
        if (type === 'image' && id === null) continue;
        expect(Number.isInteger(id), `${r.action}: ${type} id ${id}`).toBe(true);
      }
    }
    expect([...seen].sort()).toEqual(
      expect.arrayContaining([
        'account',
        'compute',
        'compute_config',
        'disk',
        'image',
        'ipaddress',
        'token',
        'user',
        'user_ssh_key',
        'volume',
      ]),
    );
    // The SLAAC address's event carries its instance's id.
    const v6 = rows.find((r) => r.action === 'ipaddress_update' && r.entity_label === slaac);
    expect(v6?.entity_id).toBe(inst.id);
  });
});
