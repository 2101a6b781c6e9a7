import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/stratus.js');

export interface Proc {
  child: ChildProcess;
  /** The API's base URL (servers only). */
  base: string;
  stdout: () => string;
  stderr: () => string;
  stop: () => Promise<number | null>;
}

/** The parent's environment without any Stratus setting, plus `extra`. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) {
    if (/^(HOST|PORT|DATABASE_URL|STRATUS_.*|LOG_LEVEL)$/.test(k)) delete env[k];
  }
  return { ...env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', ...extra };
}

/** Starts `stratus <args>` and waits for the line that says it is up. */
export async function start(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  timeoutMs = 120_000,
): Promise<Proc> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: childEnv(env) });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    err += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + timeoutMs;
  while (!ready.test(out)) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited: ${out} ${err}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${args.join(' ')} did not start: ${out} ${err}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const base = /listening on (http:\/\/\S+)\/v4 /.exec(out)?.[1] ?? '';
  return {
    child,
    base,
    stdout: () => out,
    stderr: () => err,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

export const SERVER_READY = /^Stratus is listening on /m;
export const WORKER_READY = /^Stratus worker \S+ is running jobs/m;
