import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { toolEnv } from './tools.js';

/**
 * A lock of the whole host's machine bookkeeping (capacity, SSH ports), shared by every Stratus
 * process on the host: a directory made with mkdir, which is atomic. A lock older than a minute
 * is a dead process's and is taken over.
 */
export async function withHostLock<T>(root: string, fn: () => Promise<T>): Promise<T> {
  const lock = path.join(root, 'host.lock');
  await mkdir(root, { recursive: true });
  for (let i = 0; ; i++) {
    try {
      await mkdir(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = await stat(lock).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > 60_000) await rm(lock, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, Math.min(200, 10 + i * 10)));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

/** Runs async work for one key at a time, in order (a machine's start, stop and hot-plugs). */
export class KeyedMutex {
  private readonly tails = new Map<number, Promise<unknown>>();

  run<T>(key: number, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }
}

/** Whether a local TCP port can be bound now on 127.0.0.1. */
export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen({ host: '127.0.0.1', port, exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

/** Whether a process lives (signal 0) and its command line contains `marker`. */
export async function processAlive(pid: number, marker: string): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8');
    if (cmdline.includes(marker)) {
      const st = await readFile(`/proc/${pid}/stat`, 'utf8');
      // A zombie (state Z) has exited; its parent has not reaped it yet.
      return !/^\d+ \(.*\) Z /.test(st);
    }
    return false;
  } catch {
    // No /proc (not Linux): the signal answered.
    return !existsSync('/proc');
  }
}

export async function readPid(file: string): Promise<number | null> {
  try {
    const n = Number((await readFile(file, 'utf8')).trim());
    return Number.isInteger(n) && n > 0 ? n : null;
  } catch {
    return null;
  }
}

/**
 * Whether KVM boots a kernel here: a real boot (the kernel's first line on the serial console
 * within `timeoutMs`), not the presence of /dev/kvm, which can be there and hang.
 */
export async function kvmBoots(qemu: string, kernel: string, dir: string, timeoutMs: number) {
  if (!existsSync('/dev/kvm')) return false;
  await mkdir(dir, { recursive: true });
  const log = path.join(dir, 'kvm-probe.log');
  await writeFile(log, '');
  const child = spawn(
    qemu,
    [
      '-accel',
      'kvm',
      '-machine',
      'pc',
      '-m',
      '128',
      '-nodefaults',
      '-no-user-config',
      '-display',
      'none',
      '-no-reboot',
      '-kernel',
      kernel,
      '-append',
      'console=ttyS0 panic=-1',
      '-serial',
      `file:${log}`,
    ],
    { stdio: 'ignore', env: toolEnv() },
  );
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const started = Date.now();
  let ok = false;
  while (Date.now() - started < timeoutMs) {
    if ((await readFile(log, 'utf8').catch(() => '')).includes('Linux version')) {
      ok = true;
      break;
    }
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  await exited;
  await rm(log, { force: true });
  return ok;
}
