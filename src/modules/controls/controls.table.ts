/** Settings of the emulator controls, one row per key (clock, timing, faults, operator). */
export interface EmulatorSettingsTable {
  key: string;
  /** JSON. */
  value: string;
  /** Random, new at every change: a process applies a row whose version it has not seen. */
  version: number;
}

/** How many more requests a counted fault rule answers. */
export interface EmulatorFaultCountersTable {
  rule_id: string;
  remaining: number;
}

/** Fixed-window rate-limit counters shared by API processes (PostgreSQL). */
export interface RateLimitCountersTable {
  key: string;
  window_start: number;
  count: number;
  reset_ms: number;
}

export interface ControlsTables {
  emulator_settings: EmulatorSettingsTable;
  emulator_fault_counters: EmulatorFaultCountersTable;
  rate_limit_counters: RateLimitCountersTable;
}

/**
 * Tables that are not the cloud's state: reset leaves them alone and snapshots leave them out
 * (the migrations' own tables, the controls' settings, the job workers' heartbeats). Rate-limit
 * counters are emptied by a reset but never exported.
 */
export const CONTROL_TABLES: readonly string[] = [
  'stratus_migrations',
  'stratus_migrations_lock',
  'emulator_settings',
  'emulator_fault_counters',
  'job_workers',
];
export const TRANSIENT_TABLES: readonly string[] = ['rate_limit_counters'];
