/** Latency buckets in seconds. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

interface Series {
  count: number;
  sum: number;
  buckets: number[];
  /** Requests by status. */
  statuses: Map<number, number>;
}

export interface JobGauges {
  byStatus: Record<string, number>;
  /** Seconds since the oldest due, unclaimed job became due (0 when none). */
  lagSeconds: number;
  runner: { succeeded: number; failed: number; retried: number; steps: number };
}

const esc = (s: string) => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"');

/** Prometheus metrics: requests and latency by operation and status, job gauges, the areas' own. */
export class Metrics {
  /** operation → method → series: looked up by the strings a request already has, none built. */
  private readonly series = new Map<string, Map<string, Series>>();

  observe(operation: string, method: string, status: number, seconds: number): void {
    let byMethod = this.series.get(operation);
    if (!byMethod) {
      byMethod = new Map();
      this.series.set(operation, byMethod);
    }
    let s = byMethod.get(method);
    if (!s) {
      s = { count: 0, sum: 0, buckets: BUCKETS.map(() => 0), statuses: new Map() };
      byMethod.set(method, s);
    }
    s.statuses.set(status, (s.statuses.get(status) ?? 0) + 1);
    s.count++;
    s.sum += seconds;
    for (let i = 0; i < BUCKETS.length; i++)
      if (seconds <= (BUCKETS[i] as number)) s.buckets[i] = (s.buckets[i] ?? 0) + 1;
  }

  private *eachSeries(): Generator<[string, string, Series]> {
    for (const [op, byMethod] of this.series) for (const [m, s] of byMethod) yield [op, m, s];
  }

  /** The text format: the requests, the jobs, then the lines of the areas (`metrics` of a module). */
  render(jobs: JobGauges, areas: readonly string[]): string {
    const out: string[] = [];
    out.push('# HELP stratus_http_requests_total HTTP requests by operation, method and status.');
    out.push('# TYPE stratus_http_requests_total counter');
    for (const [op, method, s] of this.eachSeries()) {
      for (const [status, n] of s.statuses) {
        out.push(
          `stratus_http_requests_total{operation="${esc(op)}",method="${method}",status="${status}"} ${n}`,
        );
      }
    }
    out.push('# HELP stratus_http_request_duration_seconds Request latency by operation.');
    out.push('# TYPE stratus_http_request_duration_seconds histogram');
    for (const [op, method, s] of this.eachSeries()) {
      const labels = `operation="${esc(op)}",method="${method}"`;
      BUCKETS.forEach((b, i) => {
        out.push(
          `stratus_http_request_duration_seconds_bucket{${labels},le="${b}"} ${s.buckets[i] ?? 0}`,
        );
      });
      out.push(`stratus_http_request_duration_seconds_bucket{${labels},le="+Inf"} ${s.count}`);
      out.push(`stratus_http_request_duration_seconds_sum{${labels}} ${s.sum}`);
      out.push(`stratus_http_request_duration_seconds_count{${labels}} ${s.count}`);
    }
    out.push('# HELP stratus_jobs Jobs in the database by status.');
    out.push('# TYPE stratus_jobs gauge');
    for (const status of ['queued', 'running', 'failed']) {
      out.push(`stratus_jobs{status="${status}"} ${jobs.byStatus[status] ?? 0}`);
    }
    out.push('# HELP stratus_job_lag_seconds Age of the oldest due job not yet claimed.');
    out.push('# TYPE stratus_job_lag_seconds gauge');
    out.push(`stratus_job_lag_seconds ${jobs.lagSeconds}`);
    out.push('# HELP stratus_job_steps_total Job steps run by this process.');
    out.push('# TYPE stratus_job_steps_total counter');
    out.push(`stratus_job_steps_total ${jobs.runner.steps}`);
    out.push('# TYPE stratus_jobs_succeeded_total counter');
    out.push(`stratus_jobs_succeeded_total ${jobs.runner.succeeded}`);
    out.push('# TYPE stratus_jobs_failed_total counter');
    out.push(`stratus_jobs_failed_total ${jobs.runner.failed}`);
    out.push('# TYPE stratus_job_retries_total counter');
    out.push(`stratus_job_retries_total ${jobs.runner.retried}`);
    out.push(...areas);
    return `${out.join('\n')}\n`;
  }
}
