import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  listTables,
  readSequences,
  runStatements,
} from '../../../src/modules/controls/state.tables.js';
import { buildTestApp, DIALECT, type TestApp } from '../../helpers/build-test-app.js';
import { createVolume, op, operatorToken, secondAccount, sshKey } from './helpers.js';

/**
 * What a reset sends to PostgreSQL, statement by statement: every text a pg client is asked to
 * run while `recording` is on. Installed before the test apps make their connections.
 */
const texts: string[] = [];
let recording = false;
const original = pg.Client.prototype.query;

describe('emulator controls: the statements of a reset', () => {
  let t: TestApp;
  let token: string;
  beforeAll(() => {
    pg.Client.prototype.query = function recorded(this: pg.Client, ...args: unknown[]) {
      const c = args[0] as string | { text?: string };
      if (recording) texts.push(typeof c === 'string' ? c : (c?.text ?? ''));
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof original;
  });
  afterAll(() => {
    pg.Client.prototype.query = original;
  });
  beforeEach(async () => {
    t = await buildTestApp();
    token = await operatorToken(t);
    texts.length = 0;
  });
  afterEach(async () => {
    recording = false;
    await t.close();
  });

  /** Runs fn with every statement recorded; the statements that delete rows. */
  const recorded = async (fn: () => Promise<unknown>) => {
    texts.length = 0;
    recording = true;
    await fn();
    recording = false;
    return texts.filter((x) => /^\s*delete from/i.test(x));
  };

  it('reset: one account’s rows go in one round trip on PostgreSQL, and only that account’s', async () => {
    const other = await secondAccount(t);
    await createVolume(t, 'mine');
    await sshKey(t, 'mine');
    await createVolume(t, 'theirs', other.token);
    await t.settle();
    const euuid = (await t.get('/v4/account')).body.euuid as string;

    const deletes = await recorded(async () => {
      const r = await op(t, token).post('/_stratus/reset', { euuid });
      expect(r.status, r.text).toBe(200);
    });
    if (DIALECT === 'postgres') {
      // One text of several statements, the account's id written in it (no parameters).
      expect(deletes).toHaveLength(1);
      expect(deletes[0]).toContain('delete from "volumes" where account_id = ');
      expect(deletes[0]).toContain('delete from "ssh_keys" where account_id = ');
      expect(deletes[0]).not.toContain('$1');
    }
    expect((await t.get('/v4/volumes')).body.results).toBe(0);
    expect((await t.get('/v4/profile/sshkeys')).body.results).toBe(0);
    const theirs = await t.get('/v4/volumes', { token: other.token });
    expect(theirs.body.data.map((v: { label: string }) => v.label)).toEqual(['theirs']);
  });

  it('reset: a full reset clears in one round trip on PostgreSQL and sets only the sequences that moved', async () => {
    await createVolume(t, 'a');
    await sshKey(t, 'k');
    await t.settle();
    const first = await op(t, token).post('/_stratus/reset');
    expect(first.status, first.text).toBe(200);
    const admin = first.body.admin.token as string;
    await createVolume(t, 'b', admin);
    await createVolume(t, 'c', admin);
    await t.settle();

    texts.length = 0;
    const deletes = await recorded(async () => {
      const r = await op(t, token).post('/_stratus/reset');
      expect(r.status, r.text).toBe(200);
    });
    const setvals = texts.filter((x) => x.includes('setval('));
    if (DIALECT === 'postgres') {
      expect(deletes).toHaveLength(1);
      expect(deletes[0]).toContain('delete from "volumes"');
      // One statement for the sequences that moved since the last reset (the volumes', the
      // events', the first-start rows'), not one for each of the tables with a sequence.
      expect(setvals).toHaveLength(1);
      const calls = (setvals[0] ?? '').split('setval(').length - 1;
      const serial = (await listTables(t.ctx.db)).filter((x) => x.serial).length;
      expect(calls).toBeGreaterThan(0);
      expect(calls).toBeLessThan(serial / 4);
    }
    // Ids restart: the next volume and key are number 1 again.
    const seq = await readSequences(
      t.ctx.db,
      (await listTables(t.ctx.db)).filter((x) => ['volumes', 'ssh_keys'].includes(x.name)),
    );
    expect(seq.volumes ?? 0).toBe(0);
    expect(seq.ssh_keys ?? 0).toBe(0);
    expect(await createVolume(t, 'again', admin)).toBe(1);
  });

  it('runStatements: PostgreSQL refuses a statement with parameters; SQLite runs each', async () => {
    const db = t.ctx.db;
    await sql`create table run_probe (id integer primary key)`.execute(db.db);
    const statements = [
      sql`insert into run_probe values (1)`,
      sql`insert into run_probe values (2)`,
    ];
    await runStatements(db, statements);
    const n = await sql<{ n: number | string }>`select count(*) as n from run_probe`.execute(db.db);
    expect(Number(n.rows[0]?.n)).toBe(2);
    const withValue = [sql`insert into run_probe values (${3})`];
    if (DIALECT === 'postgres') {
      await expect(runStatements(db, withValue)).rejects.toThrow(/parameters/);
    } else {
      await runStatements(db, withValue);
    }
    await sql`drop table run_probe`.execute(db.db);
  });
});
