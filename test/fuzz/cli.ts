/**
 * `npm run fuzz -- [--seed N] [--runs N] [--ops REGEX] [--engine sqlite|postgres]`: the long
 * fuzz run (default 200 requests per operation, a seed from the clock, printed so that a
 * finding can be replayed with `--seed`).
 */
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    runs: { type: 'string', default: '200' },
    ops: { type: 'string', default: '.' },
    engine: { type: 'string', default: process.env.DB_DIALECT ?? 'sqlite' },
  },
});
const seed = values.seed ?? String(Date.now() % 1_000_000_000);
if (!/^\d+$/.test(seed) || !/^\d+$/.test(values.runs)) {
  console.error('--seed and --runs take whole numbers');
  process.exit(2);
}
if (!['sqlite', 'postgres'].includes(values.engine)) {
  console.error('--engine is sqlite or postgres');
  process.exit(2);
}
console.log(`fuzz: seed ${seed}, ${values.runs} runs per operation, ${values.engine}`);
const env: NodeJS.ProcessEnv = {
  ...process.env,
  DB_DIALECT: values.engine,
  FUZZ_SEED: seed,
  FUZZ_RUNS: values.runs,
  FUZZ_OPS: values.ops,
  FUZZ_REPORT: '1',
};
if (values.engine === 'postgres') env.STRATUS_PG_TMPDIR ??= '/dev/shm';
const r = spawnSync('npx', ['vitest', 'run', 'test/fuzz/fuzz.test.ts'], { stdio: 'inherit', env });
process.exit(r.status ?? 1);
