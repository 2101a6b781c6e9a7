import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Page, PageParams } from '../../lib/pagination.js';
import { parseApiTime } from '../../lib/time.js';
import type { CatalogueService } from '../catalogue/catalogue.service.js';
import type { InstanceRow } from './compute.repository.js';
import type { InstancesService } from './instances.service.js';
import type { FirewallsService } from '../networking/firewalls.service.js';
import type { ApiFirewall } from '../networking/firewalls.schemas.js';
import type { ComputeDriver } from '../../machines/driver.js';
import { sampledSeries } from './machines.stats.js';

export const STEP_MS = 5 * 60_000;
const DAY_MS = 86_400_000;

type Point = [number, number];
export interface StatsData {
  cpu: Point[];
  io: { io: Point[]; swap: Point[] };
  netv4: { in: Point[]; out: Point[]; private_in: Point[]; private_out: Point[] };
  netv6: { in: Point[]; out: Point[]; private_in: Point[]; private_out: Point[] };
}

/** What the synthetic series of one instance depend on. */
export interface StatsSubject {
  id: number;
  vcpus: number;
  hasPrivate: boolean;
  createdMs: number;
  /** Running periods, an open one ending now. */
  runs: { start: number; end: number }[];
}

/** A deterministic number in [0, 1) for (instance, 5-minute bucket, series): no Math.random. */
function unit(id: number, bucket: number, series: number): number {
  let h = Math.imul((id + 0x9e3779b9) | 0, 0x85ebca6b);
  h ^= Math.imul(series + 1, 0xc2b2ae35);
  h = Math.imul(h ^ bucket, 0x27d4eb2d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}

const round2 = (v: number) => Math.round(v * 100) / 100;

/** Share of the bucket starting at t during which the instance ran (0..1). */
function runningShare(s: StatsSubject, t: number): number {
  let ms = 0;
  for (const r of s.runs) ms += Math.max(0, Math.min(r.end, t + STEP_MS) - Math.max(r.start, t));
  return Math.min(1, ms / STEP_MS);
}

/**
 * One bucket's averages: CPU %, blocks/s and bits/s. A daily cycle (peak 15:00 UTC), per-instance
 * levels and per-bucket noise, scaled by the share of the bucket the instance was running: an
 * instance that is off shows zeros.
 */
export function sample(s: StatsSubject, t: number) {
  const f = runningShare(s, t);
  const b = Math.floor(t / STEP_MS);
  const level = (k: number) => unit(s.id, -1, k);
  const noise = (k: number) => unit(s.id, b, k);
  const day = (t % DAY_MS) / DAY_MS;
  const cycle = 0.5 + 0.5 * Math.sin(2 * Math.PI * (day - 0.375));
  const traffic = (base: number, k: number) =>
    f * base * (0.3 + 1.4 * cycle) * (0.6 + 0.8 * noise(k));
  if (f === 0) {
    return { cpu: 0, io: 0, swap: 0, v4in: 0, v4out: 0, v4pin: 0, v4pout: 0, v6in: 0, v6out: 0 };
  }
  const spike = noise(2) < 0.015 ? 30 + 60 * noise(3) : 0;
  const cpu = Math.min(100 * s.vcpus, (1 + 9 * level(0)) * (0.5 + cycle) + 2 * noise(1) + spike);
  return {
    cpu: f * cpu,
    io: f * (0.5 + 8 * level(1)) * (0.6 + 0.8 * cycle) * (0.5 + noise(4)),
    swap: noise(5) < 0.04 ? f * 2 * noise(6) : 0,
    v4in: traffic(2_000 + 30_000 * level(2), 7),
    v4out: traffic(3_000 + 60_000 * level(3), 8),
    v4pin: s.hasPrivate ? f * (200 + 4_000 * level(4)) * (0.5 + noise(9)) : 0,
    v4pout: s.hasPrivate ? f * (200 + 4_000 * level(5)) * (0.5 + noise(10)) : 0,
    v6in: traffic(100 + 5_000 * level(6), 11),
    v6out: traffic(100 + 8_000 * level(7), 12),
  };
}

/** Start times of the complete 5-minute buckets in [from, to) since the instance existed. */
function buckets(s: StatsSubject, from: number, to: number): number[] {
  const first = Math.max(Math.ceil(from / STEP_MS), Math.floor(s.createdMs / STEP_MS)) * STEP_MS;
  const out: number[] = [];
  for (let t = first; t + STEP_MS <= to; t += STEP_MS) out.push(t);
  return out;
}

export function series(s: StatsSubject, from: number, to: number): StatsData {
  const d: StatsData = {
    cpu: [],
    io: { io: [], swap: [] },
    netv4: { in: [], out: [], private_in: [], private_out: [] },
    netv6: { in: [], out: [], private_in: [], private_out: [] },
  };
  for (const t of buckets(s, from, to)) {
    const v = sample(s, t);
    d.cpu.push([t, round2(v.cpu)]);
    d.io.io.push([t, round2(v.io)]);
    d.io.swap.push([t, round2(v.swap)]);
    d.netv4.in.push([t, round2(v.v4in)]);
    d.netv4.out.push([t, round2(v.v4out)]);
    d.netv4.private_in.push([t, round2(v.v4pin)]);
    d.netv4.private_out.push([t, round2(v.v4pout)]);
    d.netv6.in.push([t, round2(v.v6in)]);
    d.netv6.out.push([t, round2(v.v6out)]);
    d.netv6.private_in.push([t, 0]);
    d.netv6.private_out.push([t, 0]);
  }
  return d;
}

/** Public bytes in and out over [from, to), from the same samples as the statistics. */
export function transferBytes(
  s: StatsSubject,
  from: number,
  to: number,
): { in: number; out: number } {
  let bitsIn = 0;
  let bitsOut = 0;
  for (const t of buckets(s, from, to)) {
    const v = sample(s, t);
    bitsIn += v.v4in + v.v6in;
    bitsOut += v.v4out + v.v6out;
  }
  const seconds = STEP_MS / 1000;
  return { in: Math.round((bitsIn * seconds) / 8), out: Math.round((bitsOut * seconds) / 8) };
}

/** The answer of both stats routes: the series at the top level (reference) and under `data`. */
const statsBody = (title: string, data: StatsData) => ({ title, ...data, data });

const monthStart = (year: number, month: number) => Date.UTC(year, month - 1, 1);

/** Statistics and transfer of an instance (synthetic but deterministic), and its related lists. */
export class StatsService {
  constructor(
    private readonly d: {
      db: Database;
      clock: Clock;
      catalogue: CatalogueService;
      firewalls: FirewallsService;
      machines: ComputeDriver;
    },
    private readonly instances: InstancesService,
  ) {}

  private async subject(inst: InstanceRow, from: number): Promise<StatsSubject> {
    const now = this.d.clock.nowMs();
    const [runs, priv] = await Promise.all([
      this.d.db.db
        .selectFrom('instance_runs')
        .select(['started_ms', 'stopped_ms'])
        .where('instance_id', '=', inst.id)
        .where((eb) => eb.or([eb('stopped_ms', 'is', null), eb('stopped_ms', '>', from)]))
        .orderBy('started_ms')
        .execute(),
      this.d.db.db
        .selectFrom('ip_addresses')
        .select('id')
        .where('instance_id', '=', inst.id)
        .where('kind', '=', 'private')
        .executeTakeFirst(),
    ]);
    const created = parseApiTime(inst.created);
    return {
      id: inst.id,
      vcpus: this.d.catalogue.type(inst.type)?.vcpus ?? 1,
      hasPrivate: priv !== undefined,
      createdMs: Number.isNaN(created) ? 0 : created,
      runs: runs.map((r) => ({
        start: Number(r.started_ms),
        end: r.stopped_ms === null ? now : Number(r.stopped_ms),
      })),
    };
  }

  /** The series of [from, to): the machine's sampled counters (QEMU driver), or the formula. */
  private async series(inst: InstanceRow, from: number, to: number): Promise<StatsData> {
    if (this.d.machines.real) return sampledSeries(this.d.db, inst.id, from, to);
    return series(await this.subject(inst, from), from, to);
  }

  /** 400 naming the field unless year/month is a month up to the current one, 2000..2037. */
  private checkMonth(year: number, month: number): { current: boolean } {
    const fe = new FieldErrors();
    fe.check(year < 2000 || year > 2037, 'year', 'year must be between 2000 and 2037');
    fe.check(month < 1 || month > 12, 'month', 'month must be between 1 and 12');
    fe.throwIfAny();
    const now = new Date(this.d.clock.nowMs());
    const cy = now.getUTCFullYear();
    const cm = now.getUTCMonth() + 1;
    const reason = 'Statistics are only available for the current month or a past one';
    if (year > cy) throw errors.invalidField('year', reason);
    if (year === cy && month > cm) throw errors.invalidField('month', reason);
    return { current: year === cy && month === cm };
  }

  private title(inst: InstanceRow, period: string): string {
    return `compute - ${inst.label} (${inst.id}) - ${period} (5 min avg)`;
  }

  /** `GET …/stats`: the past 24 hours. */
  async stats(p: Principal, id: number) {
    const inst = await this.instances.load(this.d.db, p, id, 'read_only');
    const to = this.d.clock.nowMs();
    const from = to - DAY_MS;
    return statsBody(this.title(inst, 'day'), await this.series(inst, from, to));
  }

  /** `GET …/stats/{year}/{month}`: that month, or the past 30 days for the current one. */
  async statsMonth(p: Principal, id: number, year: number, month: number) {
    const inst = await this.instances.load(this.d.db, p, id, 'read_only');
    const { current } = this.checkMonth(year, month);
    const now = this.d.clock.nowMs();
    const [from, to] = current
      ? [now - 30 * DAY_MS, now]
      : [monthStart(year, month), monthStart(year, month + 1)];
    const period = `${year}-${String(month).padStart(2, '0')}`;
    return statsBody(this.title(inst, period), await this.series(inst, from, to));
  }

  /** `GET …/transfer`: bytes sent this month; quota prorated from the type's monthly transfer (GB). */
  async transfer(p: Principal, id: number) {
    const inst = await this.instances.load(this.d.db, p, id, 'read_only');
    const now = new Date(this.d.clock.nowMs());
    const start = monthStart(now.getUTCFullYear(), now.getUTCMonth() + 1);
    const end = monthStart(now.getUTCFullYear(), now.getUTCMonth() + 2);
    const s = await this.subject(inst, start);
    const used = transferBytes(s, start, now.getTime()).out;
    const share = (end - Math.max(start, Math.min(end, s.createdMs))) / (end - start);
    const quota = Math.round((this.d.catalogue.type(inst.type)?.transfer ?? 0) * share);
    return { used, quota, billable: Math.max(0, Math.ceil(used / 1e9) - quota) };
  }

  /** `GET …/transfer/{year}/{month}`: the month's bytes (so far, for the current one). */
  async transferMonth(p: Principal, id: number, year: number, month: number) {
    const inst = await this.instances.load(this.d.db, p, id, 'read_only');
    const { current } = this.checkMonth(year, month);
    const from = monthStart(year, month);
    const to = current ? this.d.clock.nowMs() : monthStart(year, month + 1);
    const b = transferBytes(await this.subject(inst, from), from, to);
    return { bytes_in: b.in, bytes_out: b.out, bytes_total: b.in + b.out };
  }

  /**
   * `GET …/firewalls`: the firewalls the instance is a device of, that the caller can see (the
   * instance must be visible). (`GET …/nodebalancers` is the NodeBalancers area's.)
   */
  async firewalls(p: Principal, id: number, params: PageParams): Promise<Page<ApiFirewall>> {
    await this.instances.load(this.d.db, p, id, 'read_only');
    return this.d.firewalls.ofDevice(p, 'compute', id, params);
  }
}
