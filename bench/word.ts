// npm run bench:word — the cost of STRATUS_PRODUCT_WORD per answer: an events page of 100
// (the answer with the most vocabulary) translated as the onSend hook does (parse, walk,
// serialize), against sending it as is (the setting off installs no hook at all).
import { ProductWord } from '../src/http/product-word.js';

const RUNS = Number(process.env.WORD_RUNS ?? 2000);
const page = JSON.stringify({
  data: Array.from({ length: 100 }, (_, i) => ({
    id: i + 1,
    action: 'compute_boot',
    created: '2026-03-01T12:00:00',
    entity: { id: i, type: 'compute', label: `box-${i}`, url: `/v4/compute/instances/${i}` },
    secondary_entity: null,
    status: 'finished',
    username: 'owner',
    message: null,
    percent_complete: 100,
  })),
  page: 1,
  pages: 1,
  results: 100,
});
const pw = new ProductWord('acme');
const translate = () => JSON.stringify(pw.outTree(JSON.parse(page)));
for (let i = 0; i < 200; i++) translate();
const t0 = performance.now();
for (let i = 0; i < RUNS; i++) translate();
const per = (performance.now() - t0) / RUNS;
process.stdout.write(
  `product word (acme), events page of 100 (${page.length} bytes): ${(per * 1000).toFixed(0)} µs per answer; off: 0 (no hook installed)\n`,
);
