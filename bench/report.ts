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
  const head = '| scenario | request | req/s | p50 ms | p99 ms | vs raw req/s | failures |';
  const sep = '|---|---|---:|---:|---:|---:|---:|';
  const lines = rows.map(
    (r) =>
      `| ${r.name} | ${r.request === '' ? '' : `\`${r.request}\``} | ${Math.round(r.result.rps)} | ${f2(r.result.p50)} | ${f2(
        r.result.p99,
      )} | ${r.ratio === undefined ? '-' : `${f1(r.ratio * 100)}%`} | ${r.result.failures} |`,
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
  eventsRatio: number;
  /** os.loadavg() at the start and the end, as text. */
  loadavg: string;
  /** The 1-minute load average exceeded the core count at the start or the end. */
  busy: boolean;
  notes: string[];
}

export function markdown(r: ReportInput): string {
  return `# Performance

Written by \`npm run bench\` (\`bench/run.ts\`); each run replaces this file.

| | |
|---|---|
| date | ${r.date} |
| machine | ${r.cores} cores (\`nproc\`), ${r.cpu} |
| node | ${r.node} |
| database | ${r.engine} |
| load | autocannon, ${r.connections} connections, ${r.seconds} s per scenario after a warm-up, one request in flight per connection |
| load average | ${r.loadavg} |

**The load generator, the raw server${r.engine.startsWith('PostgreSQL') ? ', PostgreSQL' : ''} and Stratus share the same ${r.cores} cores**, so
absolute numbers understate what a dedicated machine would do; the ratios to the raw server are the
meaningful figures.${
    r.busy
      ? `\n\n**Other work kept the machine busy during this run** (load average above ${r.cores}): every
figure is pessimistic and noisy; compare the two raw runs to see how much.`
      : ''
  }

## Results

${table(r.rows)}

Events page latency, 100,000 events / 1,000 events (p50): **${f2(r.eventsRatio)}x**.

## Targets

${checks(r.checks)}

## Method

${r.notes.map((n) => `- ${n}`).join('\n')}
`;
}
