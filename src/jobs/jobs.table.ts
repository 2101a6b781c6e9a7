import type { Generated } from 'kysely';

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed';

export interface JobsTable {
  id: Generated<number>;
  name: string;
  /** JSON payload, stamped with the definition's version. */
  payload: string;
  status: JobStatus;
  /** Epoch ms when the job (or its next step) is due. */
  run_at: number;
  attempts: number;
  max_attempts: number;
  locked_by: string | null;
  /** Epoch ms after which a running job's lock is considered abandoned. */
  locked_until: number | null;
  last_error: string | null;
  account_id: number | null;
  entity_type: string | null;
  entity_id: number | null;
  created: string;
  updated: string;
}

/** A process that runs jobs, as its heartbeat last wrote it (src/jobs/heartbeat.ts). */
export interface JobWorkersTable {
  /** The runner's id (`w-1a2b3c4d`). */
  id: string;
  /** `serve` (the worker inside an API process) or `worker`. */
  kind: string;
  host: string;
  pid: number;
  version: string;
  /** When the process started (ISO, wall time). */
  started: string;
  /** Wall-clock epoch ms of the runner's last pass over the queue, written every few seconds. */
  last_seen_ms: number;
  /** Job steps this process has run. */
  steps: number;
}

export interface JobTables {
  jobs: JobsTable;
  job_workers: JobWorkersTable;
}
