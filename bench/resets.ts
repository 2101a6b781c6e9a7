// The resets of issue 28 as a test suite pays them: a server from `stratus/testing`
// (`startStratus()`: in-memory SQLite, or the PostgreSQL database given, the `instant` timing
// profile), an account filled through the API with 1,000 entities across areas (instances with
// their disks, configs and addresses; volumes; firewalls; tags; and the events of all of them),
// then `POST /_stratus/reset` of that one account, or a full reset. Only the reset is timed.
import { startStratus, type StratusServer } from '../src/testing.js';

export interface ResetResult {
  runs: number;
  entities: number;
  /** ms per reset, sorted. */
  account: number[];
  full: number[];
  /** Entities of each kind made before each reset. */
  mix: Record<string, number>;
}

const MIX = { instances: 100, volumes: 300, firewalls: 300, tags: 300 };
const CONCURRENCY = 8;
const STRONG = 'Bench-Reset-Passw0rd-2026!';

async function ok(res: Promise<Response>, what: string): Promise<void> {
  const r = await res;
  if (r.status !== 200) throw new Error(`${what}: ${r.status} ${(await r.text()).slice(0, 200)}`);
  await r.arrayBuffer();
}

/** What `fill` needs of a server: a request of the API as the admin. */
export type ApiCall = Pick<StratusServer, 'api'>;

/** 1,000 entities of the admin's account, CONCURRENCY requests at a time. */
export async function fill(s: ApiCall, run: number): Promise<void> {
  const work: (() => Promise<void>)[] = [];
  for (let i = 0; i < MIX.instances; i++) {
    work.push(() =>
      ok(
        s.api('/compute/instances', {
          method: 'POST',
          body: {
            label: `r${run}-i${i}`,
            region: 'us-east',
            type: 'g6-nanode-1',
            image: 'compute/debian12',
            root_pass: STRONG,
          },
        }),
        'instance',
      ),
    );
  }
  for (let i = 0; i < MIX.volumes; i++) {
    work.push(() =>
      ok(
        s.api('/volumes', {
          method: 'POST',
          body: { label: `r${run}-v${i}`, size: 10, region: 'us-east' },
        }),
        'volume',
      ),
    );
  }
  for (let i = 0; i < MIX.firewalls; i++) {
    work.push(() =>
      ok(
        s.api('/networking/firewalls', {
          method: 'POST',
          body: {
            label: `r${run}-fw${i}`,
            rules: { inbound_policy: 'ACCEPT', outbound_policy: 'ACCEPT' },
          },
        }),
        'firewall',
      ),
    );
  }
  for (let i = 0; i < MIX.tags; i++) {
    work.push(() =>
      ok(s.api('/tags', { method: 'POST', body: { label: `r${run}-t${i}` } }), 'tag'),
    );
  }
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < work.length) await (work[next++] as () => Promise<void>)();
    }),
  );
}

/**
 * `runs` resets of each kind after one untimed warm-up of each; before every reset the account
 * is filled again. `databaseUrl`: a PostgreSQL database; without it, in-memory SQLite.
 */
export async function measureResets(runs: number, databaseUrl?: string): Promise<ResetResult> {
  const s = await startStratus(databaseUrl ? { databaseUrl } : {});
  try {
    const account_: number[] = [];
    const full: number[] = [];
    for (let i = 0; i <= runs; i++) {
      // A full reset makes the default account anew (a new euuid): read it each time.
      const account = (await (await s.api('/account')).json()) as { euuid: string };
      await fill(s, 2 * i);
      let t0 = performance.now();
      await s.operator.reset(account.euuid);
      const one = performance.now() - t0;
      await fill(s, 2 * i + 1);
      t0 = performance.now();
      await s.operator.reset();
      const all = performance.now() - t0;
      if (i > 0) {
        account_.push(one);
        full.push(all);
      }
      // The reset emptied the account: nothing of the fill is left.
      const left = (await (await s.api('/volumes')).json()) as { results: number };
      if (left.results !== 0)
        throw new Error(`after a reset the account has ${left.results} volumes`);
    }
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
    return {
      runs,
      entities: Object.values(MIX).reduce((a, b) => a + b, 0),
      account: sorted(account_),
      full: sorted(full),
      mix: MIX,
    };
  } finally {
    await s.stop();
  }
}

export const median = (sorted: number[]) =>
  sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
