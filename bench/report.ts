import type { LoadResult } from './load.js';

export interface Row {
  name: string;
  request: string;
  result: LoadResult;
  /** The raw baseline's own row has no ratio. */
  ratio?: number;
}

export interface Check {
  target: string;
  actual: string;
  pass: boolean;
}

const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '-');
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '-');

export function table(rows: Row[]): string {
  const head =
    '| scenario | request | req/s | p50 ms | p99 ms | vs raw req/s | CPU server | CPU autocannon | server CPU ms/req | failures |';
  const sep = '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|';
  const perRequest = (r: Row['result']) =>
    r.cpu === undefined || r.rps === 0 ? '-' : ((r.cpu.server * 1000) / r.rps).toFixed(3);
  const cpu = (x: number | undefined) => (x === undefined ? '-' : `${Math.round(x * 100)}%`);
  const lines = rows.map(
    (r) =>
      `| ${r.name} | ${r.request === '' ? '' : `\`${r.request}\``} | ${Math.round(r.result.rps)} | ${f2(r.result.p50)} | ${f2(
        r.result.p99,
      )} | ${r.ratio === undefined ? '-' : `${f1(r.ratio * 100)}%`} | ${cpu(r.result.cpu?.server)} | ${cpu(r.result.cpu?.generator)} | ${perRequest(r.result)} | ${r.result.failures} |`,
  );
  return [head, sep, ...lines].join('\n');
}

export function checks(list: Check[]): string {
  const head = '| target | measured | result |';
  const sep = '|---|---|---|';
  return [
    head,
    sep,
    ...list.map((c) => `| ${c.target} | ${c.actual} | ${c.pass ? 'PASS' : 'FAIL'} |`),
  ].join('\n');
}

export interface ReportInput {
  date: string;
  cores: number;
  cpu: string;
  node: string;
  engine: string;
  seconds: number;
  connections: number;
  rows: Row[];
  checks: Check[];
  /** Further sections (title, markdown body), in order. */
  sections: { title: string; body: string }[];
  /** os.loadavg() at the start and the end, as text. */
  loadavg: string;
  /** Each CPU's time for one fixed loop, at the start and the end, as text (bench/cpus.ts). */
  cpuSpeeds: string;
  /** The 1-minute load average exceeded the core count at the start or the end. */
  busy: boolean;
  notes: string[];
}

function head(r: ReportInput): string {
  return `| | |
|---|---|
| date | ${r.date} |
| machine | ${r.cores} cores (\`nproc\`), ${r.cpu} |
| node | ${r.node} |
| database | ${r.engine} |
| load | autocannon, ${r.connections} connections, ${r.seconds} s per scenario after a warm-up, one request in flight per connection |
| load average (1, 5, 15 min) | ${r.loadavg} |
| CPU speeds (one fixed loop pinned to each CPU; less is faster) | ${r.cpuSpeeds} |
${
  r.busy
    ? `\n**Other work kept the machine busy during this run** (load average above ${r.cores}): every
figure is pessimistic and noisy; compare the raw runs to see how much.\n`
    : ''
}`;
}

function body(r: ReportInput, level: string): string {
  return `${level} Targets

${checks(r.checks)}

${level} Throughput and latency

${table(r.rows)}

${r.sections.map((s) => `${level} ${s.title}\n\n${s.body}\n`).join('\n')}`;
}

export function markdown(r: ReportInput, whereTime: string): string {
  return `# Performance

Written by \`npm run bench\` (\`bench/run.ts\`); each run replaces this file, except with
\`BENCH_APPEND=1\`, which appends a run (another engine) at the end. \`npm run bench -- --pg\` (or
\`BENCH_DB=postgres\`) runs it on PostgreSQL.

## ${r.engine}

${head(r)}
**The load generator, the raw server${r.engine.startsWith('PostgreSQL') ? ', PostgreSQL' : ''} and Stratus share the same ${r.cores} cores**, so
absolute numbers understate what a dedicated machine would do; the ratios to the raw server in
the same run are the meaningful figures.

${body(r, '###')}
## Where the time goes

${whereTime}

## Method

${r.notes.map((n) => `- ${n}`).join('\n')}
`;
}

/** A further run (another engine) appended to an existing report. */
export function appendix(r: ReportInput): string {
  return `
## Also measured: ${r.engine}

${head(r)}
${body(r, '###')}`;
}
