import type { TimingProfile } from '../config/config.js';

/** Kinds of long-running work. Later areas add theirs here. */
export type WorkKind =
  | 'provision'
  | 'boot'
  | 'reboot'
  | 'shutdown'
  | 'delete'
  | 'disk_create'
  | 'disk_resize'
  | 'disk_clone'
  | 'config'
  | 'volume_create'
  | 'volume_resize'
  | 'volume_clone'
  | 'volume_attach'
  | 'resize'
  | 'migrate'
  | 'clone'
  | 'backup'
  | 'restore'
  | 'rebuild'
  | 'image_replicate'
  | 'firewall_apply';

/** Seconds the real service takes, roughly, for each kind of work. */
export const REALISTIC_SECONDS: Record<WorkKind, number> = {
  provision: 45,
  boot: 25,
  reboot: 30,
  shutdown: 15,
  delete: 10,
  disk_create: 20,
  disk_resize: 30,
  disk_clone: 40,
  config: 1,
  volume_create: 20,
  volume_resize: 30,
  volume_clone: 60,
  volume_attach: 5,
  resize: 180,
  migrate: 300,
  clone: 120,
  backup: 120,
  restore: 180,
  rebuild: 60,
  image_replicate: 120,
  firewall_apply: 10,
};

export interface TimingState {
  profile: TimingProfile;
  /** Milliseconds per kind of work, replacing the profile's figure. */
  overrides: Partial<Record<WorkKind, number>>;
}

/** `fast` keeps every operation within a few seconds so infrastructure tools run quickly. */
const FAST_FACTOR = 1 / 20;
const FAST_MAX_MS = 4000;

/**
 * The timing profile: how long each kind of work takes. `instant` finishes work as soon as a
 * worker takes it, `fast` in a few seconds at most, `realistic` close to the real service.
 */
export class Timing {
  private overrides: Partial<Record<WorkKind, number>> = {};

  constructor(private profile: TimingProfile) {}

  get current(): TimingProfile {
    return this.profile;
  }

  /** Changed at run time by the emulator controls; `overrides` are milliseconds per kind. */
  set(profile: TimingProfile, overrides: Partial<Record<WorkKind, number>> = {}): void {
    this.profile = profile;
    this.overrides = { ...overrides };
  }

  /** The setting, as stored for other processes (src/modules/controls/controls.sync.ts). */
  state(): TimingState {
    return { profile: this.profile, overrides: { ...this.overrides } };
  }

  /** Every kind of work with its total milliseconds under the current setting. */
  durations(): Record<WorkKind, number> {
    const out = {} as Record<WorkKind, number>;
    for (const k of Object.keys(REALISTIC_SECONDS) as WorkKind[]) out[k] = this.durationMs(k);
    return out;
  }

  /** Total milliseconds of a kind of work. */
  durationMs(kind: WorkKind): number {
    const fixed = this.overrides[kind];
    if (fixed !== undefined) return fixed;
    const real = REALISTIC_SECONDS[kind] * 1000;
    switch (this.profile) {
      case 'instant':
        return 0;
      case 'fast':
        return Math.min(FAST_MAX_MS, Math.round(real * FAST_FACTOR));
      case 'realistic':
        return real;
    }
  }

  /** The delay before each progress step when the work is split into `steps` steps. */
  stepMs(kind: WorkKind, steps: number): number {
    return Math.round(this.durationMs(kind) / Math.max(1, steps));
  }
}
