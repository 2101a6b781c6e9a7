/**
 * The one clock. Every delay and timestamp in Stratus goes through it, so tests run on fake time.
 */
export interface Clock {
  now(): Date;
  nowMs(): number;
}

export const systemClock: Clock = {
  now: () => new Date(),
  nowMs: () => Date.now(),
};

export type ClockMode = 'system' | 'manual';

/**
 * What a clock's setting is, as stored for other processes: `system` follows the host's time
 * shifted by `offsetMs`; `manual` stands still at `nowMs` until advanced.
 */
export type ClockState = { mode: 'system'; offsetMs: number } | { mode: 'manual'; nowMs: number };

/** A clock the emulator controls can switch between system and manual time and move forward. */
export interface ControllableClock extends Clock {
  readonly mode: ClockMode;
  /** Switches mode; the time reads the same just before and just after the switch. */
  setMode(mode: ClockMode): void;
  /** Moves the time forward by ms (never backwards). */
  advance(ms: number): void;
  /** Moves the time forward to an instant (no-op when it is already later). */
  advanceTo(ms: number): void;
  state(): ClockState;
  /** Takes another process's setting (see ControlsSync). */
  load(state: ClockState): void;
}

/**
 * The server's clock: the host's time (plus an offset once it has been advanced or left manual
 * mode), or, in manual mode, an instant that only moves when told to.
 */
export class EmulatorClock implements ControllableClock {
  protected st: ClockState;
  constructor(
    private readonly host: () => number = Date.now,
    initial: ClockState = { mode: 'system', offsetMs: 0 },
  ) {
    this.st = { ...initial };
  }
  get mode(): ClockMode {
    return this.st.mode;
  }
  now(): Date {
    return new Date(this.nowMs());
  }
  nowMs(): number {
    return this.st.mode === 'manual' ? this.st.nowMs : this.host() + this.st.offsetMs;
  }
  setMode(mode: ClockMode): void {
    if (mode === this.st.mode) return;
    const now = this.nowMs();
    this.st = mode === 'manual' ? { mode, nowMs: now } : { mode, offsetMs: now - this.host() };
  }
  advance(ms: number): void {
    if (!(ms >= 0)) throw new Error('The clock cannot go backwards');
    if (this.st.mode === 'manual') this.st = { mode: 'manual', nowMs: this.st.nowMs + ms };
    else this.st = { mode: 'system', offsetMs: this.st.offsetMs + ms };
  }
  advanceTo(ms: number): void {
    const now = this.nowMs();
    if (ms > now) this.advance(ms - now);
  }
  state(): ClockState {
    return { ...this.st };
  }
  load(state: ClockState): void {
    this.st = { ...state };
  }
}

/** A clock that only moves when told to (tests): an EmulatorClock in manual mode. */
export class FakeClock extends EmulatorClock {
  constructor(start: Date | string = '2026-01-15T12:00:00Z') {
    super(Date.now, { mode: 'manual', nowMs: new Date(start).getTime() });
  }
  override advance(ms: number): void {
    if (ms < 0) throw new Error('FakeClock cannot go backwards');
    super.advance(ms);
  }
  /** Sets the time, backwards too (tests only). */
  set(to: Date | string | number): void {
    const ms = new Date(to).getTime();
    if (this.st.mode === 'manual') this.st = { mode: 'manual', nowMs: ms };
    else this.st = { mode: 'system', offsetMs: ms - Date.now() };
  }
}
