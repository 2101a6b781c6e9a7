import fc from 'fast-check';
import { afterAll, describe, it } from 'vitest';
import { requestArb } from './arbitraries.js';
import { Harness } from './harness.js';

/**
 * Property-based fuzzing of every operation of the generated OpenAPI document: wrong types,
 * missing and extra fields, huge strings, odd Unicode, bad ids, bad X-Filter, bad paging, other
 * tokens. No answer is a 5xx, every 4xx is in the API error format, and a refused request
 * changes no row of any table. `npm test` runs a short seeded pass; `npm run fuzz` the long one
 * (FUZZ_SEED, FUZZ_RUNS per operation, FUZZ_OPS: a regular expression on operation ids).
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const RUNS = Number(process.env.FUZZ_RUNS ?? 15);
const ONLY = new RegExp(process.env.FUZZ_OPS ?? '.');

const h = new Harness();
await h.fresh();
const ops = (await h.operations()).filter((op) => ONLY.test(op.id));
const started = Date.now();

describe(`fuzz (seed ${SEED}, ${RUNS} runs per operation)`, () => {
  afterAll(async () => {
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    if (process.env.FUZZ_REPORT) {
      console.log(
        `fuzz: ${ops.length} operations, ${h.tally.requests} requests, ${secs} s, ` +
          `${JSON.stringify(h.tally.byStatus)}, ${h.tally.rebuilds} fresh apps`,
      );
    }
    await h.close();
  });

  for (const [i, op] of ops.entries()) {
    it(`${op.id}: no 5xx, every 4xx in the API error format, no state change from a refused request (${op.method} ${op.path})`, async () => {
      await fc.assert(
        fc.asyncProperty(requestArb(op, h.known), (req) => h.check(op, req)),
        { seed: SEED + i, numRuns: RUNS },
      );
    }, 600_000);
  }
});
