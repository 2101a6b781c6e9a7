/**
 * Object storage benchmark (`npm run bench:s3`): PUT and GET throughput of 4 KiB and 16 MiB
 * objects through Stratus's S3 data plane (pre-signed URLs from `object-url`, as curl or a browser
 * uses them), next to a raw node:http server doing the same disk work (bench/raw-blob-server.ts),
 * and each server's peak resident memory. BENCH_SECONDS (default 5) per scenario,
 * BENCH_CONNECTIONS (default 8). Target: at least 50% of the raw throughput for 16 MiB objects.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startStratus } from './servers.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const TOKEN = `bench-${Math.random().toString(36).slice(2)}-token-0123456789`;
const SIZES = [
  { label: '4 KiB', bytes: 4096, names: 64 },
  { label: '16 MiB', bytes: 16 * 1024 * 1024, names: 8 },
];

const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });

function send(method: string, url: string, body?: Buffer, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; bytes: number; text: string }>((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        agent,
        headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) },
      },
      (res) => {
        let bytes = 0;
        const keep: Buffer[] = [];
        res.on('data', (c: Buffer) => {
          bytes += c.length;
          if (keep.length < 4) keep.push(c);
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, bytes, text: Buffer.concat(keep).toString() }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function peakRssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** Runs `op` on CONNECTIONS loops for SECONDS; returns MiB/s and requests/s. */
async function load(op: (i: number) => Promise<number>) {
  const end = Date.now() + SECONDS * 1000;
  let bytes = 0;
  let count = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, w) => {
      for (let i = w; Date.now() < end; i += CONNECTIONS) {
        bytes += await op(i);
        count++;
      }
    }),
  );
  return { mibs: bytes / 1024 / 1024 / SECONDS, rps: count / SECONDS };
}

function startRawBlob(dir: string): Promise<{ url: string; pid: number; stop: () => void }> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/raw-blob-server.ts'],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH, RAW_DIR: dir },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (c: Buffer) => {
      const port = /listening (\d+)/.exec(c.toString())?.[1];
      if (port && child.pid)
        resolve({
          url: `http://127.0.0.1:${port}`,
          pid: child.pid,
          stop: () => child.kill('SIGTERM'),
        });
    });
    child.once('exit', (code) => reject(new Error(`raw blob server exited ${code}`)));
  });
}

async function api(base: string, method: string, p: string, body?: unknown) {
  const r = await send(
    method,
    `${base}/v4${p}`,
    body ? Buffer.from(JSON.stringify(body)) : undefined,
    {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
    },
  );
  if (r.status !== 200) throw new Error(`${method} ${p}: ${r.status} ${r.text}`);
  return JSON.parse(r.text);
}

async function main() {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'stratus-bench-s3-'));
  const stratus = await startStratus({ dataDir: path.join(tmp, 'stratus'), adminToken: TOKEN });
  const raw = await startRawBlob(path.join(tmp, 'raw'));
  const rows: string[] = [];
  try {
    await api(stratus.url, 'POST', '/object-storage/buckets', {
      cluster: 'us-east-1',
      label: 'bench',
    });
    const url = async (method: string, name: string) =>
      (
        await api(stratus.url, 'POST', '/object-storage/buckets/us-east-1/bench/object-url', {
          method,
          name,
          expires_in: 86400,
          ...(method === 'PUT' ? { content_type: 'application/octet-stream' } : {}),
        })
      ).url as string;
    const type = { 'content-type': 'application/octet-stream' };
    for (const size of SIZES) {
      const body = Buffer.alloc(size.bytes, 7);
      const names = Array.from({ length: size.names }, (_, i) => `${size.bytes}/obj-${i}`);
      const puts = await Promise.all(names.map((n) => url('PUT', n)));
      const gets = await Promise.all(names.map((n) => url('GET', n)));
      const check = async (r: Promise<{ status: number; bytes: number }>, want: number) => {
        const x = await r;
        if (x.status !== 200)
          throw new Error(`status ${x.status}: ${(x as { text?: string }).text}`);
        return want === 0 ? size.bytes : x.bytes;
      };
      const sPut = await load((i) =>
        check(send('PUT', puts[i % puts.length] as string, body, type), 0),
      );
      const rPut = await load((i) =>
        check(send('PUT', `${raw.url}/${names[i % names.length]}`, body), 0),
      );
      const sGet = await load((i) => check(send('GET', gets[i % gets.length] as string), 1));
      const rGet = await load((i) =>
        check(send('GET', `${raw.url}/${names[i % names.length]}`), 1),
      );
      for (const [op, s, r] of [
        ['PUT', sPut, rPut],
        ['GET', sGet, rGet],
      ] as const) {
        rows.push(
          `| ${op} ${size.label} | ${s.mibs.toFixed(1)} MiB/s (${s.rps.toFixed(0)}/s) | ${r.mibs.toFixed(1)} MiB/s (${r.rps.toFixed(0)}/s) | ${((100 * s.mibs) / r.mibs).toFixed(0)}% |`,
        );
      }
    }
    const out = [
      `Object storage, ${CONNECTIONS} connections, ${SECONDS} s per scenario`,
      '',
      '| operation | Stratus (pre-signed URLs) | raw node:http | ratio |',
      '|---|---|---|---|',
      ...rows,
      '',
      `Peak RSS: Stratus ${(await peakRssMb(stratus.pid)).toFixed(0)} MiB, raw ${(await peakRssMb(raw.pid)).toFixed(0)} MiB`,
    ].join('\n');
    process.stdout.write(`${out}\n`);
  } finally {
    await stratus.stop();
    raw.stop();
    await rm(tmp, { recursive: true, force: true });
  }
}

await main();
