import { INVOICING_JOB } from '../../src/modules/billing/schedule.js';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { Database } from '../../src/db/database.js';
import { DIALECT } from '../helpers/build-test-app.js';
import { createDatabase, dropDatabase } from '../helpers/pg-server.js';
import { type Proc, SERVER_READY, start } from '../scale/processes.js';
import { type Api, type Entry, prng, write } from './writer.js';

/**
 * Crash test: writers drive creates and updates across areas against a real server process
 * (timing `fast`, so jobs are in flight) that is killed with SIGKILL at seeded random moments.
 * After each restart every write answered 2xx is there, whole, with its event; at the end every
 * job has reached its end state exactly once. `npm test` kills it 8 times per engine;
 * `npm run crash` 20 times (CRASH_KILLS, CRASH_SEED); the figures are in docs/robustness.md.
 */
const KILLS = Number(process.env.CRASH_KILLS ?? 8);
const SEED = Number(process.env.CRASH_SEED ?? 1125);
const WRITERS = 4;
const ADMIN = `crash-admin-${randomBytes(6).toString('hex')}`;
const OPERATOR = `crash-operator-${randomBytes(6).toString('hex')}`;

async function store(dir: string): Promise<{ url: string; drop: () => Promise<void> }> {
  if (DIALECT === 'sqlite')
    return { url: `sqlite:${path.join(dir, 'crash.db')}`, drop: async () => {} };
  const admin = inject('pgAdminUrl');
  const name = `crash_${randomBytes(6).toString('hex')}`;
  return { url: await createDatabase(admin, name), drop: () => dropDatabase(admin, name) };
}

function apiOf(base: string, token: string): Api {
  return {
    async call(method, url, body) {
      for (;;) {
        const r = await fetch(`${base}${url}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const out = { status: r.status, body: (await r.json()) as any };
        // What SDKs do with "<Entity> busy.": wait and retry.
        if (r.status === 400 && /busy\.$/.test(out.body.errors?.[0]?.reason ?? '')) {
          await new Promise((res) => setTimeout(res, 100));
          continue;
        }
        return out;
      }
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('crash', () => {
  const cleanups: (() => Promise<void>)[] = [];
  let proc: Proc | undefined;
  afterAll(async () => {
    if (proc && proc.child.exitCode === null) proc.child.kill('SIGKILL');
    for (const c of cleanups.reverse()) await c();
  });

  it(`crash: ${KILLS} SIGKILLs at random moments under writes lose no answered write, event or job, and the server restarts by itself`, async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'stratus-crash-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const db = await store(dir);
    cleanups.push(db.drop);
    const env = {
      DATABASE_URL: db.url,
      STRATUS_DATA_DIR: dir,
      STRATUS_TIMING: 'fast',
      STRATUS_ADMIN_TOKEN: ADMIN,
      STRATUS_OPERATOR_TOKEN: OPERATOR,
      STRATUS_RATE_LIMITS: 'off',
      STRATUS_ENCRYPTION_KEY: 'crash-test-encryption-key-0123456789abcdef',
    };
    const t0 = Date.now();
    const rand = prng(SEED);
    const ledger: Entry[] = [];
    let check: Database | undefined;
    let inFlight = 0;

    for (let cycle = 0; cycle <= KILLS; cycle++) {
      // The server starts by itself on what the last one left: no manual step.
      proc = await start(['serve'], env, SERVER_READY);
      const api = apiOf(proc.base, ADMIN);
      check ??= Database.connect(db.url, { poolSize: 2 });
      // Jobs the killed process left under way (queued, or running under its dead lease).
      const open = await check.db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', 'in', ['queued', 'running'])
        .where('name', 'not like', '%backup%')
        .where('name', '!=', INVOICING_JOB)
        .executeTakeFirstOrThrow();
      inFlight += Number(open.n);
      await verify(api, check, ledger);
      if (cycle === KILLS) break;
      let dead = false;
      const writers = Array.from({ length: WRITERS }, (_, w) =>
        write(api, ledger, `w${w}x`, `${cycle}`, prng(SEED * 31 + cycle * 7 + w), () => dead),
      );
      await sleep(300 + Math.floor(rand() * 2200));
      dead = true;
      proc.child.kill('SIGKILL');
      await new Promise((r) => proc?.child.once('exit', r));
      await Promise.all(writers);
    }
    if (!proc || !check) throw new Error('no server');
    expect(ledger.length).toBeGreaterThan(KILLS);
    // The kills did hit work under way.
    expect(inFlight).toBeGreaterThan(0);

    // Jobs: the leases of the killed processes end after 60 s; move the clock past them and let
    // this process finish every job.
    const adv = await fetch(`${proc.base}/_stratus/clock/advance`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' },
      body: JSON.stringify({ seconds: 61 }),
    });
    expect(adv.status, await adv.text()).toBe(200);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const left = await check.db
        .selectFrom('jobs')
        .select(['id', 'name', 'status', 'attempts', 'last_error'])
        .where('name', 'not like', '%backup%')
        .execute();
      expect(left.filter((j) => j.status === 'failed')).toEqual([]);
      // The monthly invoicing schedule stands queued for the 1st: exactly one, never doubled by a
      // crash between opening a billing period and committing.
      const schedules = left.filter((j) => j.name === INVOICING_JOB);
      expect(schedules.length).toBeLessThanOrEqual(1);
      if (left.length === schedules.length) break;
      if (Date.now() > deadline) throw new Error(`jobs left: ${JSON.stringify(left)}`);
      await sleep(200);
    }
    const recovered = await check.db
      .selectFrom('instances')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    await finalInvariants(check);
    if (process.env.CRASH_REPORT) {
      console.log(
        `crash (${DIALECT}): ${KILLS} kills, ${ledger.length} answered creates, ` +
          `${ledger.reduce((n, e) => n + e.acknowledgedUpdates, 0)} answered updates, ` +
          `${ledger.reduce((n, e) => n + e.pending.length, 0)} updates unanswered at a kill, ` +
          `${inFlight} jobs under way at the kills, ${Number(recovered.n)} instances all running, ${((Date.now() - t0) / 1000).toFixed(1)} s`,
      );
    }
    await verify(apiOf(proc.base, ADMIN), check, ledger);
    await check.close();
    await proc.stop();
  }, 900_000);
});

/** Every answered write is there, whole, with its events. */
async function verify(api: Api, db: Database, ledger: Entry[]): Promise<void> {
  const events = await db.db
    .selectFrom('events')
    .select(['action', 'entity_id', 'entity_label', 'message'])
    .execute();
  const count = (action: string, e: Entry) =>
    events.filter((x) => {
      if (x.action !== action) return false;
      const m = e.eventMatch;
      if (m.by === 'id') return x.entity_id === e.id;
      if (m.by === 'label') return x.entity_label === e.id;
      return (x.message ?? '').includes(m.text);
    }).length;
  for (const e of ledger) {
    const r = await api.call('GET', e.url);
    const what = `${e.kind} ${e.id}: ${JSON.stringify(r.body).slice(0, 300)}`;
    expect(r.status, what).toBe(200);
    if (e.kind !== 'tag') {
      expect([e.label, ...e.pending], what).toContain(r.body.label);
    }
    if (e.createEvent) expect(count(e.createEvent, e), `${e.createEvent} of ${what}`).toBe(1);
    if (e.updateEvent) {
      const n = count(e.updateEvent, e);
      expect(n, `${e.updateEvent} of ${what}`).toBeGreaterThanOrEqual(e.acknowledgedUpdates);
      expect(n, `${e.updateEvent} of ${what}`).toBeLessThanOrEqual(
        e.acknowledgedUpdates + e.pending.length,
      );
    }
  }
}

/** Every job reached its end once: instances running, volumes active, one event and run each. */
async function finalInvariants(db: Database): Promise<void> {
  const instances = await db.db.selectFrom('instances').select(['id', 'status']).execute();
  expect(instances.filter((i) => i.status !== 'running')).toEqual([]);
  const volumes = await db.db.selectFrom('volumes').select(['id', 'status']).execute();
  expect(volumes.filter((v) => v.status !== 'active')).toEqual([]);
  const per = await sql<{ action: string; entity_id: number; status: string; n: number }>`
    select action, entity_id, status, count(*) as n from events
    where action in ('compute_create', 'compute_boot', 'volume_create')
    group by action, entity_id, status`.execute(db.db);
  const rows = per.rows.map((r) => ({ ...r, n: Number(r.n) }));
  expect(rows.filter((r) => r.status !== 'finished' || r.n !== 1)).toEqual([]);
  for (const i of instances) {
    for (const action of ['compute_create', 'compute_boot']) {
      expect(
        rows.some((r) => r.action === action && r.entity_id === i.id),
        `${action} ${i.id}`,
      ).toBe(true);
    }
  }
  for (const v of volumes) {
    expect(rows.some((r) => r.action === 'volume_create' && r.entity_id === v.id)).toBe(true);
  }
  // A boot step run twice would open two billing runs.
  const runs = await sql<{ instance_id: number; n: number }>`
    select instance_id, count(*) as n from instance_runs group by instance_id`.execute(db.db);
  expect(runs.rows.filter((r) => Number(r.n) !== 1)).toEqual([]);
  expect(runs.rows).toHaveLength(instances.length);
  const dup = await sql`select region, address from ip_addresses group by region, address
    having count(*) > 1`.execute(db.db);
  expect(dup.rows).toEqual([]);
}
