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

/** A clock that only moves when told to. */
export class FakeClock implements Clock {
  private ms: number;
  constructor(start: Date | string = '2026-01-15T12:00:00Z') {
    this.ms = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.ms);
  }
  nowMs(): number {
    return this.ms;
  }
  advance(ms: number): void {
    if (ms < 0) throw new Error('FakeClock cannot go backwards');
    this.ms += ms;
  }
  set(to: Date | string | number): void {
    this.ms = new Date(to).getTime();
  }
}
