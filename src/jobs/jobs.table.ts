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

export interface JobTables {
  jobs: JobsTable;
}
