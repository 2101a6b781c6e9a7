import { spawnSync } from 'node:child_process';
import os from 'node:os';

/**
 * The speed of each CPU the system offers, as the time of one fixed loop of JavaScript run in a
 * process pinned to it (`taskset`, Linux). On the VM this bench was written on, the two vCPUs
 * differed by a third for minutes at a time (the loop took about 550 ms on one and 415 ms on the
 * other): a process the scheduler put on the slow one ran every figure of it a third slower, which
 * made single scenarios and starts bimodal. The report shows these times at the start and the end
 * of a run, so that a reader can tell the machine's moves from the server's.
 */

const LOOP =
  'let x=0;const t=performance.now();for(let i=0;i<1e8;i++)x+=i%7;process.stdout.write(String(performance.now()-t+(x<0?1:0)))';
const TRIES = 3;

/** Milliseconds of the loop on each CPU (median of three), or undefined where it cannot pin. */
export function cpuSpeeds(): number[] | undefined {
  if (process.platform !== 'linux') return undefined;
  const out: number[] = [];
  for (let cpu = 0; cpu < os.availableParallelism(); cpu++) {
    const times: number[] = [];
    for (let i = 0; i < TRIES; i++) {
      const r = spawnSync('taskset', ['-c', String(cpu), process.execPath, '-e', LOOP], {
        encoding: 'utf8',
      });
      const ms = Number(r.stdout);
      if (r.status !== 0 || !Number.isFinite(ms)) return undefined;
      times.push(ms);
    }
    out.push([...times].sort((a, b) => a - b)[1] as number);
  }
  return out;
}

/** `cpu0 183 ms, cpu1 138 ms`, or why there is no figure. */
export function cpuSpeedsText(speeds: number[] | undefined): string {
  if (!speeds) return 'not measured (no `taskset`)';
  return speeds.map((ms, cpu) => `cpu${cpu} ${ms.toFixed(0)} ms`).join(', ');
}

/** Sets the CPUs of every thread of `pid` (`taskset -a -p`); false where that cannot be done. */
function setCpus(pid: number, cpus: string): boolean {
  const r = spawnSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
  return r.status === 0;
}

/**
 * Runs `fn` with the servers `pids` all on one CPU (the last) and this process, the load
 * generator, on the others; then gives every process all the CPUs again. Two servers whose
 * answers are compared with each other (the same read at two sizes, a setting off and on) are
 * then measured on the same CPU: left to the scheduler, one could run on the slow vCPU and the
 * other on the fast one, a difference of up to a third on this bench's machine that would be
 * read as the server's. `pinned` is false where there are not two CPUs or no `taskset`, or
 * when not `enabled`.
 */
export async function onOneCpu<T>(
  pids: number[],
  fn: () => Promise<T>,
  enabled = true,
): Promise<{ result: T; pinned: boolean }> {
  if (!enabled) return { result: await fn(), pinned: false };
  const n = os.availableParallelism();
  const all = `0-${n - 1}`;
  const everyone = [process.pid, ...pids];
  const pinned =
    process.platform === 'linux' &&
    n >= 2 &&
    pids.every((pid) => setCpus(pid, String(n - 1))) &&
    setCpus(process.pid, n === 2 ? '0' : `0-${n - 2}`);
  try {
    return { result: await fn(), pinned };
  } finally {
    // Every CPU again, for whichever of them were pinned.
    if (process.platform === 'linux') for (const pid of everyone) setCpus(pid, all);
  }
}
