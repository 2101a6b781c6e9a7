import { INVOICING_JOB } from '../../src/modules/billing/schedule.js';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { Database } from '../../src/db/database.js';
import { DIALECT } from '../helpers/build-test-app.js';
import { createDatabase, dropDatabase } from '../helpers/pg-server.js';
import { type Proc, SERVER_READY, start, WORKER_READY } from './processes.js';

const ACCOUNTS = 8;
const CLIENTS = 64;
const OPERATOR = `operator-${randomBytes(8).toString('hex')}`;
const tokenOf = (i: number) => `scale-account-${i}-${'x'.repeat(8)}`;
const RL_TOKEN = 'scale-rate-limited-token';

interface Call {
  status: number;
  body: any;
}

async function call(base: string, token: string, method: string, url: string, body?: unknown) {
  for (;;) {
    const r = await fetch(`${base}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const out: Call = { status: r.status, body: await r.json() };
    // What SDKs do: wait and retry on "<Entity> busy.".
    if (r.status === 400 && /busy\.$/.test(out.body.errors?.[0]?.reason ?? '')) {
      await new Promise((res) => setTimeout(res, 100));
      continue;
    }
    return out;
  }
}

async function store(): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = inject('pgAdminUrl');
  const name = `scale_${randomBytes(6).toString('hex')}`;
  const url = await createDatabase(admin, name);
  return { url, drop: () => dropDatabase(admin, name) };
}

describe.runIf(DIALECT === 'postgres')('scale-out', () => {
  const procs: Proc[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    await Promise.all(procs.map((p) => p.stop()));
    for (const c of cleanups) await c();
  });

  it('scale-out: 3 API processes and 2 workers on one database serve 64 concurrent clients; every job runs once, invariants hold, no event is missing or duplicated', async () => {
    const db = await store();
    cleanups.push(db.drop);
    const dir = await mkdtemp(path.join(tmpdir(), 'stratus-seed-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const seed = path.join(dir, 'seed.json');
    await writeFile(
      seed,
      JSON.stringify({
        accounts: [
          ...Array.from({ length: ACCOUNTS }, (_, i) => ({
            email: `a${i}@example.com`,
            username: `account${i}`,
            token: tokenOf(i),
          })),
          { email: 'rl@example.com', username: 'ratelimited', token: RL_TOKEN },
        ],
      }),
    );
    const env = {
      DATABASE_URL: db.url,
      STRATUS_TIMING: 'instant',
      STRATUS_OPERATOR_TOKEN: OPERATOR,
      STRATUS_SEED: seed,
      STRATUS_RATE_LIMITS: 'on',
    };
    // Five processes start together on the empty database: one of them migrates, seeds the
    // catalogue, the default account and the seed file; the others wait or find them done.
    procs.push(
      ...(await Promise.all([
        start(['serve', '--no-worker'], env, SERVER_READY),
        start(['serve', '--no-worker'], env, SERVER_READY),
        start(['serve', '--no-worker'], env, SERVER_READY),
        start(['worker'], env, WORKER_READY),
        start(['worker'], env, WORKER_READY),
      ])),
    );
    const apis = procs.slice(0, 3).map((p) => p.base);
    const seeded = procs.filter((p) => p.stdout().includes('Seeded 9 account(s)'));
    expect(seeded).toHaveLength(1);

    // Rate limits are shared: 12 instance creates with one token across the 3 processes, in one
    // 30-second window (wait for a fresh one if this one is about to end), give 10 and 2 x 429.
    const msLeft = 30_000 - (Date.now() % 30_000);
    if (msLeft < 5_000) await new Promise((r) => setTimeout(r, msLeft + 50));
    const limited = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call(apis[i % 3] as string, RL_TOKEN, 'POST', '/v4/compute/instances', {
          region: 'us-east',
          type: 'g6-nanode-1',
          label: `rlim${i}`,
        }),
      ),
    );
    const codes = limited.map((r) => r.status).sort();
    expect(codes).toEqual([...Array(10).fill(200), 429, 429]);

    // 64 clients, each on an account and a process, creating an instance and a volume and
    // renaming the volume (through another process).
    const results = await Promise.all(
      Array.from({ length: CLIENTS }, async (_, i) => {
        const token = tokenOf(i % ACCOUNTS);
        const api = (k: number) => apis[(i + k) % 3] as string;
        const inst = await call(api(0), token, 'POST', '/v4/compute/instances', {
          region: 'us-east',
          type: 'g6-nanode-1',
          image: 'compute/debian12',
          root_pass: 's3cr3t-P4ssw0rd!',
          label: `cli${i}`,
        });
        expect(inst.status, JSON.stringify(inst.body)).toBe(200);
        const vol = await call(api(1), token, 'POST', '/v4/volumes', {
          label: `vol${i}`,
          region: 'us-east',
          size: 20,
        });
        expect(vol.status, JSON.stringify(vol.body)).toBe(200);
        const ren = await call(api(2), token, 'PUT', `/v4/volumes/${vol.body.id}`, {
          label: `vol${i}-renamed`,
        });
        expect(ren.status, JSON.stringify(ren.body)).toBe(200);
        return { account: i % ACCOUNTS, instance: inst.body.id as number, volume: vol.body.id };
      }),
    );

    // Wait for the workers to finish every job but the standing monthly invoicing schedule: the
    // first billing periods, opened at once through 3 processes, queued it exactly once.
    const check = Database.connect(db.url, { poolSize: 2 });
    cleanups.unshift(() => check.close());
    const schedules = await check.db
      .selectFrom('jobs')
      .select(['status', 'run_at'])
      .where('name', '=', INVOICING_JOB)
      .execute();
    expect(schedules).toHaveLength(1);
    expect(schedules[0]?.status).toBe('queued');
    const deadline = Date.now() + 60_000;
    for (;;) {
      const left = await check.db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('name', '!=', INVOICING_JOB)
        .executeTakeFirstOrThrow();
      if (Number(left.n) === 0) break;
      if (Date.now() > deadline) {
        const jobs = await check.db.selectFrom('jobs').selectAll().execute();
        throw new Error(`jobs left: ${JSON.stringify(jobs)}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }

    // Every instance ran through to running once, every volume is active.
    const instances = await check.db.selectFrom('instances').select(['id', 'status']).execute();
    expect(instances).toHaveLength(CLIENTS + 10);
    const byStatus = (s: string) => instances.filter((x) => x.status === s).length;
    expect(byStatus('running')).toBe(CLIENTS);
    expect(byStatus('offline')).toBe(10);
    const volumes = await check.db.selectFrom('volumes').select(['status', 'label']).execute();
    expect(volumes.every((v) => v.status === 'active' && v.label.endsWith('-renamed'))).toBe(true);
    // One billing run per booted instance: a boot step that ran twice would open two.
    const runs = await sql<{ instance_id: number; n: number }>`
      select instance_id, count(*) as n from instance_runs group by instance_id`.execute(check.db);
    expect(runs.rows).toHaveLength(CLIENTS);
    expect(runs.rows.every((r) => Number(r.n) === 1)).toBe(true);
    // Addresses: unique, one public IPv4 per instance.
    const dup = await sql`select region, address from ip_addresses group by region, address
      having count(*) > 1`.execute(check.db);
    expect(dup.rows).toEqual([]);
    const v4 = await sql<{ n: number }>`select count(*) as n from ip_addresses
      where kind = 'public' and instance_id is not null`.execute(check.db);
    expect(Number(v4.rows[0]?.n)).toBe(CLIENTS + 10);

    // Events: exactly the expected ones per account, the same through every process.
    for (let a = 0; a < ACCOUNTS; a++) {
      const mine = results.filter((r) => r.account === a);
      const expected = [
        ...mine.flatMap((r) => [
          `compute_create:${r.instance}:finished`,
          `compute_boot:${r.instance}:finished`,
        ]),
        ...mine.flatMap((r) => [
          `volume_create:${r.volume}:finished`,
          `volume_update:${r.volume}:notification`,
        ]),
      ].sort();
      const pages = await Promise.all(
        apis.map((base) => call(base, tokenOf(a), 'GET', '/v4/account/events?page_size=500')),
      );
      for (const p of pages) {
        expect(p.status).toBe(200);
        const seen = (p.body.data as any[])
          .map((e) => `${e.action}:${e.entity.id}:${e.status}`)
          .sort();
        expect(seen).toEqual(expected);
        expect(new Set(p.body.data.map((e: any) => e.id)).size).toBe(p.body.data.length);
      }
      expect(pages[1]?.body).toEqual(pages[0]?.body);
      expect(pages[2]?.body).toEqual(pages[0]?.body);
    }

    // The API processes ran no job (--no-worker): the workers did all.
    for (const base of apis) {
      const m = await fetch(`${base}/_stratus/metrics`, {
        headers: { authorization: `Bearer ${OPERATOR}` },
      });
      expect(await m.text()).toMatch(/^stratus_job_steps_total 0$/m);
    }
  }, 240_000);
});
