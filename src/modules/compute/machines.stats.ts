import type { Database } from '../../db/database.js';
import type { StatsData } from './stats.service.js';

const STEP_MS = 5 * 60_000;
const round2 = (v: number) => Math.round(v * 100) / 100;

interface Sample {
  t_ms: number;
  cpu_ms: number;
  disk_read_ops: number;
  disk_write_ops: number;
  net_rx_bytes: number | null;
  net_tx_bytes: number | null;
}

/**
 * The statistics of an instance whose machine runs on the QEMU driver: 5-minute averages of the
 * counters the host agent sampled (machines.agent.ts), not the simulated formula. CPU is percent
 * of one core (100 per vCPU, as the API counts), `io` disk operations per second, network bits
 * per second (bridge mode; user-mode networking has no counters, so zeros). A counter that went
 * down is a machine that restarted: its new value is what it did since.
 */
export async function sampledSeries(
  db: Database,
  instanceId: number,
  from: number,
  to: number,
): Promise<StatsData> {
  const rows = (await db.db
    .selectFrom('machine_samples')
    .select(['t_ms', 'cpu_ms', 'disk_read_ops', 'disk_write_ops', 'net_rx_bytes', 'net_tx_bytes'])
    .where('instance_id', '=', instanceId)
    .where('t_ms', '>=', from - STEP_MS)
    .where('t_ms', '<', to)
    .orderBy('t_ms')
    .execute()) as Sample[];
  const buckets = new Map<number, { cpu: number; io: number; rx: number; tx: number }>();
  const delta = (a: number | null, b: number | null) =>
    a === null || b === null ? 0 : Number(b) >= Number(a) ? Number(b) - Number(a) : Number(b);
  for (let i = 1; i < rows.length; i++) {
    const a = rows[i - 1] as Sample;
    const b = rows[i] as Sample;
    const t = Math.floor(Number(b.t_ms) / STEP_MS) * STEP_MS;
    const acc = buckets.get(t) ?? { cpu: 0, io: 0, rx: 0, tx: 0 };
    acc.cpu += delta(a.cpu_ms, b.cpu_ms);
    acc.io += delta(a.disk_read_ops, b.disk_read_ops) + delta(a.disk_write_ops, b.disk_write_ops);
    acc.rx += delta(a.net_rx_bytes, b.net_rx_bytes);
    acc.tx += delta(a.net_tx_bytes, b.net_tx_bytes);
    buckets.set(t, acc);
  }
  const d: StatsData = {
    cpu: [],
    io: { io: [], swap: [] },
    netv4: { in: [], out: [], private_in: [], private_out: [] },
    netv6: { in: [], out: [], private_in: [], private_out: [] },
  };
  const seconds = STEP_MS / 1000;
  for (let t = Math.ceil(from / STEP_MS) * STEP_MS; t + STEP_MS <= to; t += STEP_MS) {
    const b = buckets.get(t) ?? { cpu: 0, io: 0, rx: 0, tx: 0 };
    d.cpu.push([t, round2((b.cpu / STEP_MS) * 100)]);
    d.io.io.push([t, round2(b.io / seconds)]);
    d.io.swap.push([t, 0]);
    d.netv4.in.push([t, round2((b.rx * 8) / seconds)]);
    d.netv4.out.push([t, round2((b.tx * 8) / seconds)]);
    for (const s of [d.netv4.private_in, d.netv4.private_out, d.netv6.in, d.netv6.out])
      s.push([t, 0]);
    d.netv6.private_in.push([t, 0]);
    d.netv6.private_out.push([t, 0]);
  }
  return d;
}
