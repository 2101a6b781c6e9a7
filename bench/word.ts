// npm run bench:word — the cost of STRATUS_PRODUCT_WORD per answer, translated as the onSend
// hook does (on its text; the catalogue's answers parsed, walked and serialized), against sending
// it as is (the setting off installs no hook at all): an events page of 100 (the answer with the
// most vocabulary), and the instance types page (the catalogue's own text: every `Compute …` label
// is the word's).
import { readFileSync } from 'node:fs';
import { catalogueText, ProductWord } from '../src/http/product-word.js';

const RUNS = Number(process.env.WORD_RUNS ?? 2000);
const events = JSON.stringify({
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
const types: unknown[] = JSON.parse(
  readFileSync(new URL('../src/modules/catalogue/data/types.json', import.meta.url), 'utf8'),
);
const typesPage = JSON.stringify({ data: types, page: 1, pages: 1, results: types.length });
const pw = new ProductWord('acme');

function measure(name: string, page: string, operationId: string): void {
  const catalogue = catalogueText(operationId);
  // As the onSend hook does: the catalogue's answers parsed, walked and serialized again; the
  // others translated on their text.
  const translate = () => {
    if (catalogue === undefined) return pw.outText(page);
    const parsed = JSON.parse(page);
    pw.outCatalogue(parsed, catalogue);
    return JSON.stringify(pw.outTree(parsed));
  };
  for (let i = 0; i < 200; i++) translate();
  const t0 = performance.now();
  for (let i = 0; i < RUNS; i++) translate();
  const per = (performance.now() - t0) / RUNS;
  process.stdout.write(
    `product word (acme), ${name} (${page.length} bytes): ${(per * 1000).toFixed(0)} µs per answer; off: 0 (no hook installed)\n`,
  );
}

measure('events page of 100', events, 'getEvents');
measure(`instance types page of ${types.length}`, typesPage, 'getComputeTypes');
