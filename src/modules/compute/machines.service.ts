import { errors } from '../../errors/errors.js';
import { MachineAgent, type AgentDeps } from './machines.agent.js';

/** A machine as the operator endpoints show it: the driver's view and its instance's. */
export interface MachineView {
  compute_id: number;
  label: string | null;
  status: string | null;
  region: string;
  state: string;
  pid: number | null;
  accel: string | null;
  vcpus: number | null;
  memory_mb: number | null;
  ssh: { host: string; port: number; command: string } | null;
  tap: string | null;
  /** Bridge mode: the nftables table (bridge family) of the instance's firewalls, when applied. */
  firewall_table: string | null;
  console_log: string;
  started: string | null;
}

/**
 * What runs the instances (src/machines), for the operator: the machines of this host with their
 * SSH ports and consoles (`/_stratus/machines`), and the host agent the worker processes start.
 */
export class MachinesService {
  readonly agent: MachineAgent;

  constructor(private readonly d: AgentDeps) {
    this.agent = new MachineAgent(d);
  }

  async list(): Promise<{
    driver: string;
    capacity: { vcpus: number; memory_mb: number } | null;
    data: MachineView[];
  }> {
    const { db, machines } = this.d;
    const found = await machines.list();
    const rows = new Map(
      (await db.db.selectFrom('instances').select(['id', 'label', 'status']).execute()).map((r) => [
        r.id,
        r,
      ]),
    );
    const cap = machines.capacity();
    return {
      driver: machines.name,
      capacity: machines.real ? { vcpus: cap.vcpus, memory_mb: cap.memoryMb } : null,
      data: found.map((m) => ({
        compute_id: m.instanceId,
        label: rows.get(m.instanceId)?.label ?? null,
        status: rows.get(m.instanceId)?.status ?? null,
        region: m.region,
        state: m.state,
        pid: m.pid,
        accel: m.accel,
        vcpus: m.vcpus,
        memory_mb: m.memoryMb,
        ssh: m.ssh ? { ...m.ssh, command: `ssh -p ${m.ssh.port} root@${m.ssh.host}` } : null,
        tap: m.tap,
        firewall_table: m.firewallTable,
        console_log: m.consoleLog,
        started: m.startedAt,
      })),
    };
  }

  private async known(id: number): Promise<void> {
    const row = await this.d.db.db
      .selectFrom('instances')
      .select('id')
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row || !this.d.machines.real) throw errors.notFound();
  }

  /** The last `bytes` the machine's serial console printed. */
  async consoleRead(id: number, bytes: number): Promise<string> {
    await this.known(id);
    return this.d.machines.consoleRead(id, bytes);
  }

  /** Types into the machine's serial console. */
  async consoleWrite(id: number, data: string): Promise<void> {
    await this.known(id);
    if ((await this.d.machines.status(id)).state !== 'running')
      throw errors.reason('The machine is not running.');
    await this.d.machines.consoleWrite(id, data);
  }
}
