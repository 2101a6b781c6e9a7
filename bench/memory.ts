import { readFileSync } from 'node:fs';

/** One reading of a process's memory, MB (Linux /proc/<pid>/status). */
export interface MemoryReading {
  /** Peak resident set so far (VmHWM). */
  hwm: number;
  /** Resident set now (VmRSS), and its anonymous (heaps) and file-backed (code, mapped files) parts. */
  rss: number;
  anon: number;
  file: number;
}

export function readMemory(pid: number): MemoryReading {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) =>
    Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) / 1024;
  return { hwm: kb('VmHWM'), rss: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile') };
}

export interface PhasePeak {
  phase: string;
  /** The highest VmRSS sampled during the phase. */
  maxRss: number;
  /** How much VmHWM rose during the phase (0: the peak was not raised then). */
  hwmRise: number;
}

export interface MemoryReport {
  /** VmHWM at the end: the true peak, whenever it happened. */
  hwm: number;
  /** VmRSS at the end. */
  rss: number;
  /** The phase in which VmHWM last rose, i.e. where the peak was reached. */
  peakPhase: string;
  /** The sample with the highest VmRSS (anonymous and file-backed parts at that moment). */
  peakSample: MemoryReading;
  phases: PhasePeak[];
}

/**
 * Samples a process's memory every `intervalMs` and attributes it to named phases (`phase()`):
 * each phase's highest VmRSS, and how much the peak (VmHWM) rose during it, so that a report can
 * say where the peak happened, not only how high it was. VmHWM is read at every sample, so a
 * peak between two samples is still attributed to the phase it happened in.
 */
export function watchMemory(pid: number, firstPhase: string, intervalMs = 10) {
  const phases: PhasePeak[] = [];
  let current: PhasePeak = { phase: firstPhase, maxRss: 0, hwmRise: 0 };
  phases.push(current);
  const first = readMemory(pid);
  // What the process reached before the first sample (its start) counts for the first phase.
  current.hwmRise = first.hwm;
  current.maxRss = first.rss;
  let lastHwm = first.hwm;
  let peakSample = first;
  const sample = () => {
    let m: MemoryReading;
    try {
      m = readMemory(pid);
    } catch {
      return; // the process has exited
    }
    if (m.rss > current.maxRss) current.maxRss = m.rss;
    if (m.rss > peakSample.rss) peakSample = m;
    if (m.hwm > lastHwm) {
      current.hwmRise += m.hwm - lastHwm;
      lastHwm = m.hwm;
    }
  };
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return {
    /** Starts a new phase (samples first, so what happened so far counts for the previous one). */
    phase(name: string): void {
      sample();
      current = { phase: name, maxRss: 0, hwmRise: 0 };
      phases.push(current);
    },
    stop(): MemoryReport {
      sample();
      clearInterval(timer);
      const end = readMemory(pid);
      let peakPhase = firstPhase;
      for (const p of phases) if (p.hwmRise > 0) peakPhase = p.phase;
      return { hwm: end.hwm, rss: end.rss, peakPhase, peakSample, phases };
    },
  };
}
