import type { Static } from '@sinclair/typebox';
import type { Database } from '../../db/database.js';
import type { JobRunner } from '../../jobs/runner.js';
import type { Timing, TimingState, WorkKind } from '../../jobs/timing.js';
import { REALISTIC_SECONDS } from '../../jobs/timing.js';
import type { ClockMode, ClockState, ControllableClock } from '../../lib/clock.js';
import { errors } from '../../errors/errors.js';
import { FaultSet, type FaultRule, type FaultsBody } from './faults.js';
import { readSettings, type SettingKey, writeSetting } from './settings.js';

export interface ControlsDeps {
  db: Database;
  clock: ControllableClock;
  timing: Timing;
  faults: FaultSet;
  runner: JobRunner;
}

export interface ClockView {
  mode: ClockMode;
  now: string;
  now_ms: number;
}

/** The settings applied to this process (the operator token's hash is read where used). */
const APPLIED: readonly string[] = ['clock', 'timing', 'faults'];

/** The most job steps one advance runs (a guard against jobs that reschedule for ever). */
const MAX_ADVANCE_STEPS = 100_000;

/**
 * Timing, clock and faults at run time. Each change applies in this process at once and is
 * stored in `emulator_settings`, which every other process reads back (`refresh`, every few
 * hundred ms in servers and workers), so N API processes and M workers share one setting.
 */
export class ControlsService {
  private readonly seen = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: ControlsDeps) {}

  timingView(): TimingState & { durations_ms: Record<WorkKind, number> } {
    return { ...this.deps.timing.state(), durations_ms: this.deps.timing.durations() };
  }

  async setTiming(body: {
    profile?: TimingState['profile'];
    overrides?: Record<string, number>;
  }): Promise<ReturnType<ControlsService['timingView']>> {
    const cur = this.deps.timing.state();
    const overrides = body.overrides ?? (body.profile ? {} : cur.overrides);
    for (const k of Object.keys(overrides)) {
      if (!(k in REALISTIC_SECONDS)) {
        throw errors.invalidField(`overrides.${k}`, 'Not a kind of work Stratus times.');
      }
    }
    this.deps.timing.set(
      body.profile ?? cur.profile,
      overrides as Partial<Record<WorkKind, number>>,
    );
    await this.store('timing', this.deps.timing.state());
    return this.timingView();
  }

  clockView(): ClockView {
    const ms = this.deps.clock.nowMs();
    return { mode: this.deps.clock.mode, now: new Date(ms).toISOString(), now_ms: ms };
  }

  async setClockMode(mode: ClockMode): Promise<ClockView> {
    this.deps.clock.setMode(mode);
    await this.store('clock', this.deps.clock.state());
    this.deps.runner.wake();
    return this.clockView();
  }

  /**
   * Moves the clock forward by `ms`, running every job step that falls due on the way, in time
   * order, with the clock at each step's due time (what tests do with a fake clock). Answers once
   * the steps due by the new time have run, so an instance can be stepped through its statuses.
   */
  async advance(ms: number): Promise<ClockView & { steps: number }> {
    const { clock, runner } = this.deps;
    const target = clock.nowMs() + ms;
    let steps = 0;
    let wait = true;
    const waitUntil = Date.now() + 10_000;
    for (let i = 0; i < MAX_ADVANCE_STEPS; i++) {
      const ran = await runner.runDue();
      steps += ran;
      if (wait) wait = await this.untilNoneRunning();
      const next = await this.nextQueuedAt();
      if (next === undefined || next > target) break;
      if (next > clock.nowMs()) clock.advanceTo(next);
      else if (ran === 0) {
        // Due, yet nothing to claim: another runner has it in its batch's open transaction
        // (PostgreSQL: the rows are locked, still queued). Its commit moves it on: wait for that.
        if (Date.now() > waitUntil) break;
        await new Promise((r) => setTimeout(r, 10));
      }
    }
    clock.advanceTo(target);
    steps += await runner.runDue();
    if (wait) await this.untilNoneRunning();
    await this.store('clock', clock.state());
    runner.wake();
    return { ...this.clockView(), steps };
  }

  /** The earliest due time of a queued job (running ones belong to whoever runs them). */
  private async nextQueuedAt(): Promise<number | undefined> {
    const row = await this.deps.db.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.min('run_at').as('next'))
      .where('status', '=', 'queued')
      .executeTakeFirst();
    return row?.next === null || row?.next === undefined ? undefined : Number(row.next);
  }

  /** Waits (up to 10 s) for steps other runners (this process's loop, workers) have under way. */
  private async untilNoneRunning(): Promise<boolean> {
    const until = Date.now() + 10_000;
    while (Date.now() < until) {
      const row = await this.deps.db.db
        .selectFrom('jobs')
        .select('id')
        .where('status', '=', 'running')
        .limit(1)
        .executeTakeFirst();
      if (!row) return true;
      await new Promise((r) => setTimeout(r, 10));
    }
    return false;
  }

  async faultsView(): Promise<{ rules: (FaultRule & { remaining: number | null })[] }> {
    const counters = await this.deps.db.db
      .selectFrom('emulator_fault_counters')
      .selectAll()
      .execute();
    const left = new Map(counters.map((c) => [c.rule_id, Number(c.remaining)]));
    return {
      rules: this.deps.faults.rules.map((r) => ({
        ...r,
        remaining: r.count === undefined ? null : (left.get(r.id) ?? 0),
      })),
    };
  }

  async setFaults(
    body: Static<typeof FaultsBody>,
  ): Promise<Awaited<ReturnType<ControlsService['faultsView']>>> {
    const rules = FaultSet.withIds(body.rules);
    const ids = new Set<string>();
    for (const [i, r] of rules.entries()) {
      if (ids.has(r.id)) throw errors.invalidField(`rules[${i}].id`, 'Rule ids must be unique.');
      ids.add(r.id);
    }
    await this.deps.db.transaction(async (tx) => {
      await tx.db.deleteFrom('emulator_fault_counters').execute();
      const counted = rules.filter((r) => r.count !== undefined);
      if (counted.length > 0) {
        await tx.db
          .insertInto('emulator_fault_counters')
          .values(counted.map((r) => ({ rule_id: r.id, remaining: r.count ?? 0 })))
          .execute();
      }
      await this.store('faults', rules, tx);
    });
    this.deps.faults.load(rules);
    return this.faultsView();
  }

  private async store(key: SettingKey, value: unknown, db: Database = this.deps.db): Promise<void> {
    this.seen.set(key, await writeSetting(db, key, JSON.stringify(value)));
  }

  /** Applies the settings another process stored since the last look. */
  async refresh(): Promise<void> {
    const settings = await readSettings(this.deps.db);
    for (const [key, s] of settings) {
      if (!APPLIED.includes(key) || this.seen.get(key) === s.version) continue;
      this.seen.set(key, s.version);
      const value = JSON.parse(s.value) as unknown;
      if (key === 'clock') this.deps.clock.load(value as ClockState);
      else if (key === 'timing') {
        const t = value as TimingState;
        this.deps.timing.set(t.profile, t.overrides);
      } else if (key === 'faults') this.deps.faults.load(value as FaultRule[]);
    }
  }

  /** Servers and workers: follow other processes' changes every `everyMs`. */
  startSync(everyMs = 250): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.refresh().catch(() => {});
    }, everyMs);
    this.timer.unref();
  }

  stopSync(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
