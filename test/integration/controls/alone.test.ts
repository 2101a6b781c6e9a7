import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { Database } from '../../../src/db/database.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { createVolume, op, operatorToken } from './helpers.js';

/**
 * The writes that may change much of the database run as transactions of their own
 * (`Database.transactionAlone`): on SQLite a member of a shared group would run in a savepoint,
 * and SQLite keeps in memory a copy of every page a savepoint changes until the COMMIT.
 */
describe('transactions of their own', () => {
  let t: TestApp;
  let alone: MockInstance<Database['transactionAlone']>;
  beforeEach(async () => {
    t = await buildTestApp();
    alone = vi.spyOn(Database.prototype, 'transactionAlone');
  });
  afterEach(async () => {
    alone.mockRestore();
    await t.close();
  });

  it('reset: a full reset and one account’s run alone', async () => {
    const control = op(t, await operatorToken(t));
    await createVolume(t, 'gone');
    const euuid = (await t.get('/v4/account')).body.euuid as string;
    alone.mockClear();
    expect((await control.post('/_stratus/reset', { euuid })).status).toBe(200);
    expect(alone).toHaveBeenCalledTimes(1);
    expect((await control.post('/_stratus/reset', {})).status).toBe(200);
    expect(alone).toHaveBeenCalledTimes(2);
  });

  it('importSnapshot: the import runs alone', async () => {
    const control = op(t, await operatorToken(t));
    await createVolume(t, 'kept');
    const snap = await control.get('/_stratus/snapshot?bytes=false');
    expect(snap.status).toBe(200);
    alone.mockClear();
    const r = await control.post('/_stratus/snapshot', snap.body);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(alone).toHaveBeenCalledTimes(1);
  });

  it('cancelAccount and cancelObjectStorage: the account’s deletes run alone', async () => {
    alone.mockClear();
    expect((await t.post('/v4/object-storage/cancel')).status).toBe(200);
    expect(alone).toHaveBeenCalledTimes(1);
    expect((await t.post('/v4/account/cancel', { comments: 'bye' })).status).toBe(200);
    expect(alone).toHaveBeenCalledTimes(2);
  });
});
