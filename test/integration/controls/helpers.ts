import { expect } from 'vitest';
import { type BootstrapResult, bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import type { RequestOptions, TestApp } from '../../helpers/build-test-app.js';

/** The test app's operator token (drawn as on a first start). */
export async function operatorToken(t: TestApp): Promise<string> {
  const token = await t.ctx.areas.controls.operator.ensure();
  if (token) return token;
  return t.ctx.areas.controls.operator.rotate();
}

/** A request to a control with the operator token. */
export function op(t: TestApp, token: string) {
  const o = (extra: RequestOptions = {}) => ({ ...extra, token });
  return {
    get: (url: string) => t.get(url, o()),
    post: (url: string, body?: unknown) => t.post(url, body, o()),
    put: (url: string, body?: unknown) => t.put(url, body, o()),
  };
}

export async function secondAccount(t: TestApp, name = 'other'): Promise<BootstrapResult> {
  return bootstrapAccount(t.ctx.db, t.clock, { email: `${name}@example.com`, username: name });
}

export async function createVolume(t: TestApp, label: string, token?: string): Promise<number> {
  const r = await t.post(
    '/v4/volumes',
    { label, region: 'us-east', size: 20 },
    token ? { token } : {},
  );
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.id;
}

export async function sshKey(t: TestApp, label: string, token?: string): Promise<number> {
  const r = await t.post(
    '/v4/profile/sshkeys',
    {
      label,
      ssh_key:
        'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGPhg3Lj4lX0cYw0FX0p5S8bT3y8m2W5mY1Hc1V4gP2E test',
    },
    token ? { token } : {},
  );
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.id;
}
