import { expect } from 'vitest';
import type { TestApp } from '../../helpers/build-test-app.js';

/** A multipart/form-data body with one file part (as SDKs send attachments). */
export function multipart(
  field: string,
  filename: string,
  data: Buffer | string,
  contentType?: string,
): { payload: Buffer; contentType: string } {
  const boundary = `----stratus${Math.random().toString(16).slice(2)}`;
  const head =
    `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\n` +
    (contentType ? `Content-Type: ${contentType}\r\n` : '') +
    '\r\n';
  return {
    payload: Buffer.concat([
      Buffer.from(head),
      Buffer.isBuffer(data) ? data : Buffer.from(data),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

/** POST …/attachments with a multipart body; the parsed answer. */
export async function upload(
  t: TestApp,
  ticketId: number,
  filename: string,
  data: Buffer | string,
  opts: { contentType?: string; token?: string; field?: string } = {},
): Promise<{ status: number; body: any }> {
  const m = multipart(opts.field ?? 'file', filename, data, opts.contentType);
  const r = await t.app.inject({
    method: 'POST',
    url: `/v4/support/tickets/${ticketId}/attachments`,
    headers: {
      authorization: `Bearer ${opts.token ?? t.admin.token}`,
      'content-type': m.contentType,
    },
    payload: m.payload,
  });
  return { status: r.statusCode, body: r.body === '' ? undefined : JSON.parse(r.body) };
}

/** A ticket opened through the API. */
export async function ticket(
  t: TestApp,
  body: Record<string, unknown> = {},
  token?: string,
): Promise<{ id: number; summary: string; status: string }> {
  const r = await t.post(
    '/v4/support/tickets',
    { summary: 'Cannot reach my server', description: 'It stopped answering at noon.', ...body },
    token ? { token } : {},
  );
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

/** The events of an action, oldest first. */
export async function eventsOf(t: TestApp, action: string, token?: string) {
  const r = await t.get('/v4/account/events', {
    filter: { action },
    ...(token ? { token } : {}),
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return (r.body.data as any[]).reverse();
}
