import { gzipSync } from 'node:zlib';
import { expect } from 'vitest';
import type { TestApp } from '../../helpers/build-test-app.js';

export const STRONG = 's3cr3t-P4ssw0rd!';

/** An offline instance without disks and a ready disk deployed from debian12 on it. */
export async function diskToCapture(
  t: TestApp,
  size = 2000,
  token?: string,
): Promise<{ computeId: number; diskId: number; label: string }> {
  const opts = token ? { token } : {};
  const inst = await t.post(
    '/v4/compute/instances',
    { region: 'us-east', type: 'g6-nanode-1' },
    opts,
  );
  expect(inst.status, JSON.stringify(inst.body)).toBe(200);
  await t.settle();
  const disk = await t.post(
    `/v4/compute/instances/${inst.body.id}/disks`,
    { size, image: 'compute/debian12', root_pass: STRONG, label: 'golden' },
    opts,
  );
  expect(disk.status, JSON.stringify(disk.body)).toBe(200);
  await t.settle();
  return { computeId: inst.body.id, diskId: disk.body.id, label: disk.body.label };
}

/** A private image captured from a fresh 2000 MB disk and settled (`available`). */
export async function capturedImage(
  t: TestApp,
  body: Record<string, unknown> = {},
): Promise<{ id: string; size: number; label: string }> {
  const { diskId } = await diskToCapture(t);
  const r = await t.post('/v4/images', { disk_id: diskId, ...body });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  await t.settle();
  return r.body;
}

/** The events of an image (by the n of private/n), oldest first. */
export async function imageEvents(t: TestApp, imageId: string) {
  const n = Number(imageId.split('/')[1]);
  const r = await t.get('/v4/account/events', {
    filter: { 'entity.type': 'image', 'entity.id': n, '+order_by': 'id', '+order': 'asc' },
  });
  return r.body.data as { action: string; status: string; entity: unknown; message: string }[];
}

/** The raw bytes of a disk image of `mb` MiB, gzipped. */
export function gzippedImage(mb: number): Buffer {
  return gzipSync(Buffer.alloc(mb * 1024 * 1024, 7));
}

/** PUTs bytes to an upload URL as a client would (no token, octet-stream). */
export async function putUpload(t: TestApp, uploadTo: string, payload: Buffer | string) {
  const url = new URL(uploadTo);
  const res = await t.app.inject({
    method: 'PUT',
    url: url.pathname,
    headers: { 'content-type': 'application/octet-stream' },
    payload,
  });
  return { status: res.statusCode, body: res.body === '' ? undefined : JSON.parse(res.body) };
}
