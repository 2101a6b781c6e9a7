import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  headers?: Record<string, string>;
  connections: number;
  seconds: number;
  /** A write: POST with a JSON body made anew for each request (`n` counts from 0, per run). */
  post?: (n: number) => unknown;
}

export interface LoadResult {
  /** 2xx responses per second. */
  rps: number;
  /** Latency percentiles of 2xx responses, in ms (exact, from every response time). */
  p50: number;
  p99: number;
  requests: number;
  /** Non-2xx responses plus connection errors and timeouts. */
  failures: number;
  /** CPU used during the run, in cores (1 = one core busy the whole time), when measured. */
  cpu?: { server: number; generator: number };
  /**
   * A create's whole life: the server's CPU from the load's start until the work it left behind
   * (the creates' jobs) is done, per request, and how long that took after the load.
   */
  life?: { cpuMsPerRequest: number; drainMs: number };
  /** A case loaded in rounds (`interleaved`): each round's req/s, in order. */
  roundsRps?: number[];
}

function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

/**
 * One closed-loop autocannon run. Latencies are collected from every response (autocannon's own
 * histogram rounds to whole milliseconds, too coarse for the ratios checked here).
 */
export function runLoad(o: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    let times = new Float64Array(1 << 16);
    let n = 0;
    let sent = 0;
    const post = o.post;
    const instance = autocannon(
      {
        url: o.url,
        connections: o.connections,
        duration: o.seconds,
        pipelining: 1,
        ...(o.headers ? { headers: o.headers } : {}),
        ...(post
          ? {
              requests: [
                {
                  method: 'POST' as const,
                  headers: { ...o.headers, 'content-type': 'application/json' },
                  setupRequest: (req: autocannon.Request) => ({
                    ...req,
                    body: JSON.stringify(post(sent++)),
                  }),
                },
              ],
            }
          : {}),
      },
      (err, result) => {
        if (err) return reject(err);
        const sorted = times.subarray(0, n).sort();
        resolve({
          rps: n / result.duration,
          p50: percentile(sorted, 0.5),
          p99: percentile(sorted, 0.99),
          requests: n,
          failures: result.non2xx + result.errors + result.timeouts,
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode < 200 || statusCode >= 300) return;
      if (n === times.length) {
        const bigger = new Float64Array(times.length * 2);
        bigger.set(times);
        times = bigger;
      }
      times[n++] = responseTime;
    });
  });
}
