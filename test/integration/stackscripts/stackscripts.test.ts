import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { secondAccount } from '../identity/fixtures.js';
import { capturedImage } from '../images/fixtures.js';

const SCRIPT = `#!/bin/bash
# <UDF name="APP_USER" label="Application user" example="deploy" />
# <UDF name="SIZE" label="Size" oneOf="small,large" default="small" />
echo "$APP_USER"`;

const URL = '/v4/compute/stackscripts';

describe('StackScripts', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const create = async (body: Record<string, unknown> = {}, token?: string) => {
    const r = await t.post(
      URL,
      { label: 'web-setup', images: ['compute/debian12'], script: SCRIPT, ...body },
      token ? { token } : {},
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body;
  };
  const scriptEvents = async (id: number) =>
    (
      await t.get('/v4/account/events', {
        filter: {
          'entity.type': 'stackscript',
          'entity.id': id,
          '+order_by': 'id',
          '+order': 'asc',
        },
      })
    ).body.data.map((e: { action: string }) => e.action);

  it('addStackScript: creates a script with its user-defined fields parsed, and a stackscript_create event', async () => {
    const s = await create({ description: 'Sets up a web server', rev_note: 'first' });
    expect(s).toMatchObject({
      username: 'owner',
      user_gravatar_id: createHash('md5').update('owner@example.com').digest('hex'),
      label: 'web-setup',
      description: 'Sets up a web server',
      images: ['compute/debian12'],
      deployments_total: 0,
      deployments_active: 0,
      is_public: false,
      rev_note: 'first',
      script: SCRIPT,
      mine: true,
      created: '2026-03-01T12:00:00',
      user_defined_fields: [
        { name: 'APP_USER', label: 'Application user', example: 'deploy' },
        { name: 'SIZE', label: 'Size', example: '', oneOf: 'small,large', default: 'small' },
      ],
    });
    expect(typeof s.id).toBe('number');
    expect(await scriptEvents(s.id)).toEqual(['stackscript_create']);
    expect((await t.get(`${URL}/${s.id}`)).body).toEqual(s);
  });

  it("addStackScript: the wire's fields: logo_url, ordinal, lowercase oneof/manyof beside the reference's spelling, header and required", async () => {
    const r = await t.post(URL, {
      label: 'wire-udfs',
      images: ['compute/debian12'],
      script:
        '#!/bin/bash\n# <UDF name="SIZE" label="Size" oneOf="s,l" header="Yes" required="Yes" />\n# <UDF name="ADDONS" label="Add-ons" manyOf="a,b" />\n',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ logo_url: '', ordinal: 0 });
    expect(r.body.user_defined_fields).toEqual([
      {
        name: 'SIZE',
        label: 'Size',
        example: '',
        oneOf: 's,l',
        oneof: 's,l',
        header: 'Yes',
        required: 'Yes',
      },
      { name: 'ADDONS', label: 'Add-ons', example: '', manyOf: 'a,b', manyof: 'a,b' },
    ]);
  });

  it('addStackScript: a shebang first, existing images (or any/all), label 3..128, required fields', async () => {
    const bad = await t.post(URL, {
      label: 'abc',
      images: ['compute/nope', 'compute/debian12'],
      script: 'echo no shebang',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([
      { field: 'script', reason: 'StackScript must begin with a shebang (#!)' },
      { field: 'images.0', reason: 'compute/nope is not a valid image' },
    ]);
    for (const label of ['ab', 'x'.repeat(129)]) {
      const r = await t.post(URL, { label, images: ['compute/debian12'], script: SCRIPT });
      expect(r.body.errors[0].field, label).toBe('label');
    }
    const missing = await t.post(URL, {});
    expect(missing.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'images',
      'label',
      'script',
    ]);
    expect((await t.post(URL, { label: 'abc', images: [], script: '#!/bin/sh' })).status).toBe(400);
    const img = await capturedImage(t);
    const any = await create({ images: ['any/all', img.id] });
    expect(any.images).toEqual(['any/all', img.id]);
  });

  it('getStackScripts: public scripts of every account and the caller own; anonymous sees public ones', async () => {
    const mine = await create({ label: 'mine-private' });
    const minePublic = await create({ label: 'mine-public', is_public: true });
    const other = await secondAccount(t);
    const theirsPublic = await create({ label: 'their-public', is_public: true }, other.token);
    await create({ label: 'their-private' }, other.token);
    const labels = async (token?: string | null, filter?: unknown) =>
      (await t.get(URL, { token, filter })).body.data.map((s: { label: string }) => s.label);
    expect(await labels()).toEqual(['mine-private', 'mine-public', 'their-public']);
    expect(await labels(null)).toEqual(['mine-public', 'their-public']);
    // A token without stackscripts:read_only lists as an anonymous caller.
    const scoped = await createTestUser(t, { restricted: false, scopes: 'computes:read_only' });
    expect(await labels(scoped.token)).toEqual(['mine-public', 'their-public']);
    expect(await labels(other.token)).toEqual(['mine-public', 'their-public', 'their-private']);
    expect(await labels(undefined, { mine: true })).toEqual(['mine-private', 'mine-public']);
    expect(await labels(undefined, { mine: false })).toEqual(['their-public']);
    expect(await labels(undefined, { is_public: false })).toEqual(['mine-private']);
    expect(await labels(undefined, { label: { '+contains': 'public' } })).toEqual([
      'mine-public',
      'their-public',
    ]);
    const page = await t.get(URL, { filter: { '+order_by': 'label', '+order': 'desc' } });
    expect(page.body).toMatchObject({ page: 1, pages: 1, results: 3 });
    expect(page.body.data[0].mine).toBe(false);
    // Views: another account's private script is hidden; a public one is readable, not mine.
    expect((await t.get(`${URL}/${mine.id}`, { token: other.token })).status).toBe(404);
    const pub = await t.get(`${URL}/${minePublic.id}`, { token: other.token });
    expect(pub.body).toMatchObject({ id: minePublic.id, mine: false });
    expect((await t.get(`${URL}/${theirsPublic.id}`)).body.mine).toBe(false);
    expect((await t.get(`${URL}/999999`)).status).toBe(404);
  });

  it('getStackScripts: a restricted user sees the own account scripts it holds a grant on', async () => {
    const a = await create({ label: 'granted' });
    await create({ label: 'hidden' });
    const u = await createTestUser(t, {
      grants: [{ type: 'stackscript', id: a.id, permissions: 'read_only' }],
    });
    const list = await t.get(URL, { token: u.token });
    expect(list.body.data.map((s: { label: string; mine: boolean }) => [s.label, s.mine])).toEqual([
      ['granted', true],
    ]);
    // read_only: viewable, not changeable.
    expect((await t.get(`${URL}/${a.id}`, { token: u.token })).status).toBe(200);
    expect((await t.put(`${URL}/${a.id}`, { label: 'x-y-z' }, { token: u.token })).status).toBe(
      403,
    );
    expect((await t.del(`${URL}/${a.id}`, { token: u.token })).status).toBe(403);
    const grants = await t.get(`/v4/account/users/${u.username}/grants`);
    expect(grants.body.stackscript).toEqual([
      { id: a.id, label: 'granted', permissions: 'read_only' },
      { id: a.id + 1, label: 'hidden', permissions: null },
    ]);
  });

  it('addStackScript: needs add_stackscripts; the creator gets read_write', async () => {
    const denied = await createTestUser(t);
    const r = await t.post(
      URL,
      { label: 'nope', images: ['compute/debian12'], script: SCRIPT },
      { token: denied.token },
    );
    expect(r.status).toBe(403);
    const u = await createTestUser(t, { global: { add_stackscripts: true } });
    const s = await create({}, u.token);
    expect(s.mine).toBe(true);
    expect((await t.put(`${URL}/${s.id}`, { label: 'renamed' }, { token: u.token })).status).toBe(
      200,
    );
  });

  it('updateStackScript: a new script is a revision with re-parsed fields; is_public goes one way', async () => {
    const s = await create();
    const revised = await t.put(`${URL}/${s.id}`, {
      script: '#!/bin/bash\n# <UDF name="PORT" label="Port" example="80" />',
      rev_note: 'port only',
      description: 'changed',
    });
    expect(revised.status).toBe(200);
    expect(revised.body).toMatchObject({
      rev_note: 'port only',
      description: 'changed',
      user_defined_fields: [{ name: 'PORT', label: 'Port', example: '80' }],
    });
    const pub = await t.put(`${URL}/${s.id}`, { is_public: true });
    expect(pub.body.is_public).toBe(true);
    const back = await t.put(`${URL}/${s.id}`, { is_public: false });
    expect(back.status).toBe(400);
    expect(back.body.errors).toEqual([
      { field: 'is_public', reason: 'A public StackScript cannot be made private' },
    ]);
    expect((await t.get(`${URL}/${s.id}`)).body.is_public).toBe(true);
    expect(await scriptEvents(s.id)).toEqual([
      'stackscript_create',
      'stackscript_update',
      'stackscript_revise',
      'stackscript_update',
      'stackscript_publicize',
    ]);
    const bad = await t.put(`${URL}/${s.id}`, { script: 'no shebang', images: ['compute/nope'] });
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'images.0',
      'script',
    ]);
    const other = await secondAccount(t);
    expect(
      (await t.put(`${URL}/${s.id}`, { label: 'mine-now' }, { token: other.token })).status,
    ).toBe(403);
  });

  it('deleteStackScript: a private script is deleted with an event; a public one cannot be', async () => {
    const s = await create();
    const pub = await create({ is_public: true, label: 'shared' });
    const refused = await t.del(`${URL}/${pub.id}`);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].reason).toBe('A public StackScript cannot be deleted.');
    expect((await t.del(`${URL}/${s.id}`)).status).toBe(200);
    expect((await t.get(`${URL}/${s.id}`)).status).toBe(404);
    expect(await scriptEvents(s.id)).toEqual(['stackscript_create', 'stackscript_delete']);
    const other = await secondAccount(t);
    expect((await t.del(`${URL}/${pub.id}`, { token: other.token })).status).toBe(403);
    expect((await t.del(`${URL}/${s.id}`)).status).toBe(404);
  });
});
