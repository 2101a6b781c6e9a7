import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BlobStore } from '../../../src/storage/index.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { op, operatorToken } from '../controls/helpers.js';
import { eventsOf, ticket, upload } from './fixtures.js';

const store = (t: TestApp) =>
  (t.ctx.areas.support.tickets as unknown as { d: { bytes: BlobStore } }).d.bytes;

async function keys(t: TestApp): Promise<string[]> {
  const out: string[] = [];
  for await (const k of store(t).list()) out.push(k);
  return out;
}

async function bytesOf(t: TestApp, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of await store(t).get(key)) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

describe('support ticket attachments', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('createTicketAttachment: stores the file in the tickets blob store, lists its name, event ticket_attachment_upload', async () => {
    const tk = await ticket(t);
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(3000, 7)]);
    const r = await upload(t, tk.id, 'screen shot.png', png, { contentType: 'image/png' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({});
    // A client that sends no part type (Python's requests) or a generic one is accepted too.
    expect((await upload(t, tk.id, 'C:\\logs\\boot.txt', 'kernel panic')).status).toBe(200);
    expect(
      (await upload(t, tk.id, 'scan.pdf', '%PDF-1.4', { contentType: 'application/octet-stream' }))
        .status,
    ).toBe(200);
    const view = (await t.get(`/v4/support/tickets/${tk.id}`)).body;
    expect(view.attachments).toEqual(['screen shot.png', 'boot.txt', 'scan.pdf']);
    const rows = await t.ctx.db.db
      .selectFrom('support_ticket_attachments')
      .selectAll()
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.filename, r.content_type, r.size])).toEqual([
      ['screen shot.png', 'image/png', png.length],
      ['boot.txt', 'text/plain', 12],
      ['scan.pdf', 'application/pdf', 8],
    ]);
    expect(await bytesOf(t, rows[0]?.blob_key as string)).toEqual(png);
    expect((await eventsOf(t, 'ticket_attachment_upload')).length).toBe(3);
  });

  it('createTicketAttachment: refuses other file types, mismatched content types, and no file', async () => {
    const tk = await ticket(t);
    const exe = await upload(t, tk.id, 'setup.exe', 'MZ');
    expect(exe.status).toBe(400);
    expect(exe.body.errors[0].field).toBe('file');
    const lie = await upload(t, tk.id, 'photo.png', 'x', { contentType: 'text/html' });
    expect(lie.status).toBe(400);
    expect(lie.body.errors[0].field).toBe('file');
    const wrongField = await upload(t, tk.id, 'a.txt', 'x', { field: 'attachment' });
    expect(wrongField.status).toBe(400);
    const json = await t.post(`/v4/support/tickets/${tk.id}/attachments`, { file: 'a.txt' });
    expect(json.status).toBe(400);
    expect(json.body.errors[0].field).toBe('file');
    expect(await keys(t)).toEqual([]);
    expect((await t.get(`/v4/support/tickets/${tk.id}`)).body.attachments).toEqual([]);
  });

  it('createTicketAttachment: at most 5 MiB; a larger file leaves nothing behind', async () => {
    const tk = await ticket(t);
    const ok = await upload(t, tk.id, 'big.txt', Buffer.alloc(5 * 1024 * 1024, 'a'));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const r = await upload(t, tk.id, 'huge.txt', Buffer.alloc(5 * 1024 * 1024 + 1, 'a'));
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([{ field: 'file', reason: 'The file must be at most 5 MiB.' }]);
    expect((await keys(t)).length).toBe(1);
    expect((await t.get(`/v4/support/tickets/${tk.id}`)).body.attachments).toEqual(['big.txt']);
  });

  it('createTicketAttachment: not on a closed ticket, nor on a ticket the user cannot see', async () => {
    const tk = await ticket(t);
    const u = await createTestUser(t);
    expect((await upload(t, tk.id, 'a.txt', 'x', { token: u.token })).status).toBe(404);
    expect((await t.post(`/v4/support/tickets/${tk.id}/close`)).status).toBe(200);
    const r = await upload(t, tk.id, 'a.txt', 'x');
    expect(r.status).toBe(400);
    expect(r.body.errors[0].reason).toBe('This ticket is closed.');
    expect(await keys(t)).toEqual([]);
  });

  it('tickets blob store: snapshots carry the attachments; a reset removes them', async () => {
    const tk = await ticket(t);
    expect((await upload(t, tk.id, 'notes.txt', 'remember me')).status).toBe(200);
    const token = await operatorToken(t);
    const o = op(t, token);
    const exported = await t.app.inject({
      method: 'GET',
      url: '/_stratus/snapshot',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(exported.statusCode).toBe(200);
    const lines = exported.body
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.blob).map((l) => l.blob.area)).toEqual(['tickets']);

    expect((await o.post('/_stratus/reset')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 50));
    expect(await keys(t)).toEqual([]);

    const back = await t.app.inject({
      method: 'POST',
      url: '/_stratus/snapshot',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/x-ndjson',
      },
      payload: exported.body,
    });
    expect(back.statusCode, back.body).toBe(200);
    const [row] = await t.ctx.db.db.selectFrom('support_ticket_attachments').selectAll().execute();
    expect((await bytesOf(t, row?.blob_key as string)).toString()).toBe('remember me');
  });
});
