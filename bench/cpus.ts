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
