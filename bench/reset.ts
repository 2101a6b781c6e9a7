// npm run bench:reset — the per-test reset of stratus/testing: a server from startStratus()
// (in-memory SQLite, instant timing), a few entities made as a test would, then a full
// POST /_stratus/reset, many times; the median and the 95th percentile of the reset alone.
import { startStratus } from '../src/testing.js';

const RUNS = Number(process.env.RESET_RUNS ?? 200);
const TARGET_MS = 20;

const stratus = await startStratus();
try {
  const regions = (await (await stratus.api('/regions')).json()) as { data: { id: string }[] };
  const region = regions.data[0]?.id ?? '';
  const times: number[] = [];
  for (let i = 0; i < RUNS + 10; i++) {
    // What a test leaves behind: a volume, a firewall, a tag.
    await stratus.api('/volumes', { method: 'POST', body: { label: `v${i}`, size: 10, region } });
    await stratus.api('/networking/firewalls', {
      method: 'POST',
      body: { label: `fw${i}`, rules: { inbound_policy: 'ACCEPT', outbound_policy: 'ACCEPT' } },
    });
    await stratus.api('/tags', { method: 'POST', body: { label: `t${i}` } });
    const start = performance.now();
    await stratus.operator.reset();
    if (i >= 10) times.push(performance.now() - start); // the first ten warm up
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0;
  const median = at(0.5);
  process.stdout.write(
    `per-test reset (POST /_stratus/reset, ${RUNS} runs): median ${median.toFixed(1)} ms, ` +
      `p95 ${at(0.95).toFixed(1)} ms, max ${at(1).toFixed(1)} ms (target: median under ${TARGET_MS} ms)\n`,
  );
  process.exitCode = median < TARGET_MS ? 0 : 1;
} finally {
  await stratus.stop();
}
