import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../test/helpers/chromium.js';
import { SERVE_NODE_FLAGS } from './servers.js';

/**
 * `npm run bench:console`: the web console's budget. (1) The JavaScript the first page loads
 * (the entry script and its module preloads in dist/console/index.html), compressed as the
 * server sends it (brotli, and gzip); target < 250 KB. (2) First render: a served build on a new
 * SQLite database, a new browser context each run (cold cache), from navigation to the landing
 * page's heading and server facts on screen, and the browser's first contentful paint;
 * target < 1 s.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = path.join(ROOT, 'dist', 'console');

async function firstPageScripts(): Promise<string[]> {
  const html = await readFile(path.join(DIST, 'index.html'), 'utf8');
  const srcs = [
    ...html.matchAll(/<script[^>]+src="([^"]+)"/g),
    ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+)"/g),
  ];
  return srcs.map((m) => path.join(DIST, (m[1] ?? '').replace(/^\/console\//, '')));
}

async function sizes(): Promise<{ raw: number; br: number; gz: number; files: number }> {
  let raw = 0;
  let br = 0;
  let gz = 0;
  const files = await firstPageScripts();
  for (const f of files) {
    raw += (await stat(f)).size;
    br += (await stat(`${f}.br`)).size;
    gz += (await stat(`${f}.gz`)).size;
  }
  return { raw, br, gz, files: files.length };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

const median = (xs: number[]) =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function firstRender(runs: number): Promise<{ renderMs: number[]; fcpMs: number[] }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'stratus-console-bench-'));
  const port = await freePort();
  const child = spawn(process.execPath, [...SERVE_NODE_FLAGS, 'bin/stratus.js', 'serve'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: String(port),
      STRATUS_DATA_DIR: dir,
      LOG_LEVEL: 'warn',
    },
    stdio: 'ignore',
  });
  const browser = await launchChromium();
  try {
    for (let i = 0; i < 300; i++) {
      if (
        await fetch(`http://127.0.0.1:${port}/_stratus/health`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const renderMs: number[] = [];
    const fcpMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      const ctx = await browser.newContext();
      const page = await ctx.newPage();
      const t0 = performance.now();
      await page.goto(`http://127.0.0.1:${port}/`);
      await page.getByRole('heading', { name: 'The server' }).waitFor();
      renderMs.push(performance.now() - t0);
      fcpMs.push(
        await page.evaluate(
          () =>
            (globalThis as any).performance.getEntriesByName('first-contentful-paint')[0]
              ?.startTime ?? Number.NaN,
        ),
      );
      await ctx.close();
    }
    return { renderMs, fcpMs };
  } finally {
    await browser.close();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await rm(dir, { recursive: true, force: true });
  }
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const ms = (n: number) => `${n.toFixed(0)} ms`;
const s = await sizes();
console.log(
  `first page JavaScript (${s.files} files): ${kb(s.raw)} raw, ${kb(s.br)} brotli, ${kb(s.gz)} gzip (target < 250 KB compressed)`,
);
const runs = Number(process.env.BENCH_CONSOLE_RUNS ?? 5);
const r = await firstRender(Number.isInteger(runs) && runs > 0 ? runs : 5);
console.log(
  `first render of / (cold browser cache): median ${ms(median(r.renderMs))} to the server facts on screen, first contentful paint median ${ms(median(r.fcpMs))} (runs: ${r.renderMs.map(ms).join(', ')}; target < 1000 ms)`,
);
