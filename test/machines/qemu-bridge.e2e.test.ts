import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { toolEnv } from '../../src/machines/qemu/tools.js';
import { DIALECT } from '../helpers/build-test-app.js';
import { createDatabase, dropDatabase } from '../helpers/pg-server.js';
import { missingVmPackages, sshRun, VM_MISSING } from '../helpers/vm.js';
import { type Proc, SERVER_READY, start } from '../scale/processes.js';

/**
 * Bridge mode (STRATUS_VM_NETWORK=bridge) end to end, through the API of a real server: the test
 * image boots on a bridge with its API address, `ssh root@<ipv4>` answers from the host, and the
 * instance's firewall is applied as an nftables table that follows its rules. Needs root (the
 * bridge, the tap, nft), nft and what the QEMU driver's test needs; without them it is skipped,
 * except under CI=true, where that fails (a host that refuses network devices to its root is
 * skipped in CI too: see hostRefuses). One machine at a time: the SQLite and PostgreSQL runs
 * take turns through a host-wide lock (they would share tap and table names and addresses).
 */
const root = process.getuid?.() === 0;
const run = (cmd: string, args: string[]) =>
  spawnSync(cmd, args, { encoding: 'utf8', env: toolEnv(), timeout: 30_000 });
const problems = [
  ...(missingVmPackages().length > 0 ? [VM_MISSING(missingVmPackages())] : []),
  ...(root ? [] : ['bridge mode needs root (a bridge, tap devices, nft)']),
  ...(run('nft', ['--version']).status === 0
    ? []
    : ['bridge mode needs nft: apt-get install -y nftables (.ci/run installs it)']),
  ...(run('ip', ['-V']).status === 0
    ? []
    : ['bridge mode needs ip: apt-get install -y iproute2 (.ci/run installs it)']),
];
const inCi = process.env.CI === 'true' || process.env.CI === '1';

/**
 * What the host refuses whatever is installed: a container whose root may not create network
 * devices (no CAP_NET_ADMIN, no /dev/net/tun). Skipped with the reason, in CI too: no package
 * can change it, and the user-mode test still boots real machines there.
 */
function hostRefuses(): string[] {
  if (problems.length > 0) return [];
  const probe = `stxprobe${process.pid % 10_000}`;
  for (const args of [
    ['link', 'add', probe, 'type', 'bridge'],
    ['tuntap', 'add', 'dev', probe, 'mode', 'tap'],
  ]) {
    const r = run('ip', args);
    if (r.status !== 0) {
      return [
        `this host refuses \`ip ${args.join(' ')}\` (${(r.stderr || r.error?.message || '').trim()})`,
      ];
    }
    run('ip', ['link', 'del', probe]);
  }
  return [];
}
const refused = hostRefuses();
if (refused.length > 0) console.warn(`Skipping the QEMU bridge mode test: ${refused.join('; ')}`);
const ROOT = path.resolve(import.meta.dirname, '../..');
const ADMIN = 'vm-bridge-admin-token-0123456789';
const OPERATOR = 'vm-bridge-operator-token-0123456789';
const BOOT_MS = 300_000;
const STEP_TIMEOUT = 600_000;
/** A bridge of this run only (interface names: at most 15 characters). */
const BRIDGE = `stxbr${process.pid % 100_000}`;
const LOCK = path.join(os.tmpdir(), 'stratus-bridge-e2e.lock');

describe.runIf(problems.length > 0 && inCi)('qemu driver, bridge mode: prerequisites', () => {
  it('qemu driver: bridge mode can run here (root, nft, ip, QEMU and the image tools)', () => {
    throw new Error(problems.join('; '));
  });
});

if (problems.length > 0 && !inCi)
  console.warn(`Skipping the QEMU bridge mode test: ${problems.join('; ')}`);

async function until<T>(what: string, ms: number, fn: () => Promise<T | undefined | null | false>) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Whether a TCP connection to host:port opens within `ms` (refused or timed out: false). */
function tcpOpens(host: string, port: number, ms = 3000): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(ms, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

/** The host-wide lock of this test: a directory holding the owner's pid (a dead owner's is taken). */
async function lock(): Promise<() => void> {
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(path.join(LOCK, 'pid'), String(process.pid));
      return () => rmSync(LOCK, { recursive: true, force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(readFileSync(path.join(LOCK, 'pid'), 'utf8') || '0');
      let alive = owner > 0;
      try {
        if (alive) process.kill(owner, 0);
      } catch {
        alive = false;
      }
      if (!alive) rmSync(LOCK, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 2000));
    }
  }
}

const table = (id: number) => run('nft', ['list', 'table', 'bridge', `stratus_${id}`]);
const linkExists = (name: string) => run('ip', ['link', 'show', name]).status === 0;

describe.skipIf(problems.length > 0 || refused.length > 0)(
  'compute on the QEMU driver in bridge mode',
  () => {
    let dir: string;
    let key: string;
    let server: Proc | undefined;
    let unlock: () => void = () => {};
    let dropDb: () => Promise<void> = async () => {};
    const ids: { instance?: number; firewall?: number } = {};
    let ipv4 = '';
    let privateIpv4 = '';

    const api = async (method: string, url: string, body?: unknown, token = ADMIN) => {
      const res = await fetch(`${server?.base}${url}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      let json: any;
      try {
        json = text === '' ? undefined : JSON.parse(text);
      } catch {
        json = text;
      }
      return { status: res.status, body: json };
    };
    const machine = async (id: number) =>
      (await api('GET', '/_stratus/machines', undefined, OPERATOR)).body.data.find(
        (m: { compute_id: number }) => m.compute_id === id,
      );
    const ssh = (cmd: string, timeoutS = 20) => sshRun(22, key, cmd, timeoutS, ipv4);
    const sshUp = () => until('ssh to the guest', BOOT_MS, async () => ssh('hostname', 8)?.trim());
    const inbound22 = (action: 'ACCEPT' | 'DROP') => ({
      inbound: [
        {
          protocol: 'TCP',
          ports: action === 'ACCEPT' ? '22' : '80',
          addresses: { ipv4: ['0.0.0.0/0'] },
          action: 'ACCEPT',
          label: action === 'ACCEPT' ? 'ssh' : 'http-only',
        },
      ],
      inbound_policy: 'DROP',
      outbound: [],
      // Outbound DROP too: the guest's replies pass only through the reply rules (or conntrack).
      outbound_policy: 'DROP',
    });

    beforeAll(async () => {
      // The image, the key and the database are this run's own: made before the lock, so the
      // other engine's run waits only for what the two share (the machine on its bridge).
      dir = mkdtempSync(path.join(os.tmpdir(), 'stratus-vm-bridge-'));
      execFileSync(
        'bash',
        [path.join(ROOT, 'scripts/build-test-image.sh'), path.join(dir, 'images')],
        { stdio: 'ignore' },
      );
      key = path.join(dir, 'id_ed25519');
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key, '-C', 'vm-bridge']);
      let databaseUrl = `sqlite:${path.join(dir, 'stratus.db')}`;
      if (DIALECT === 'postgres') {
        const admin = inject('pgAdminUrl');
        const name = `vmbr_${Date.now().toString(36)}`;
        databaseUrl = await createDatabase(admin, name);
        dropDb = () => dropDatabase(admin, name);
      }
      unlock = await lock();
      server = await start(
        ['serve'],
        {
          STRATUS_FROM_SOURCE: '1',
          DATABASE_URL: databaseUrl,
          STRATUS_DATA_DIR: path.join(dir, 'data'),
          STRATUS_TIMING: 'instant',
          STRATUS_ADMIN_TOKEN: ADMIN,
          STRATUS_OPERATOR_TOKEN: OPERATOR,
          STRATUS_RATE_LIMITS: 'off',
          STRATUS_COMPUTE_DRIVER: 'qemu',
          STRATUS_VM_IMAGES: path.join(dir, 'images'),
          STRATUS_VM_MEMORY_SCALE: '0.125',
          STRATUS_VM_NETWORK: 'bridge',
          STRATUS_VM_BRIDGE: BRIDGE,
          STRATUS_VM_SHUTDOWN_GRACE: '60',
          STRATUS_VM_WATCH_MS: '1000',
        },
        SERVER_READY,
        180_000,
      );
    }, STEP_TIMEOUT + 600_000);

    afterAll(async () => {
      // Whatever happened: no machine, tap, table or bridge of the test stays.
      try {
        if (server && ids.instance !== undefined) {
          await api('DELETE', `/v4/compute/instances/${ids.instance}`).catch(() => undefined);
          await until('instance deleted', 120_000, async () =>
            (
              await api('GET', `/v4/compute/instances/${ids.instance}`).catch(() => ({
                status: 404,
              }))
            ).status === 404
              ? true
              : undefined,
          ).catch(() => undefined);
        }
        await server?.stop();
        if (dir) {
          const pidFile = path.join(dir, 'data/machines/run', String(ids.instance), 'qemu.pid');
          if (existsSync(pidFile)) {
            try {
              process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
            } catch {
              // gone
            }
          }
        }
        if (ids.instance !== undefined) {
          run('nft', ['delete', 'table', 'bridge', `stratus_${ids.instance}`]);
          run('ip', ['link', 'del', `stx${ids.instance}`]);
        }
        run('ip', ['link', 'del', BRIDGE]);
        await dropDb();
        if (dir) rmSync(dir, { recursive: true, force: true });
      } finally {
        unlock();
      }
    }, STEP_TIMEOUT);

    it(
      'createInstance: the test image boots on the bridge with its API address and the firewall applied',
      async () => {
        const fw = await api('POST', '/v4/networking/firewalls', {
          label: 'bridge-e2e',
          rules: inbound22('ACCEPT'),
        });
        expect(fw.status).toBe(200);
        ids.firewall = fw.body.id as number;
        const created = await api('POST', '/v4/compute/instances', {
          region: 'us-east',
          type: 'g6-nanode-1',
          image: 'compute/alpine3.20',
          label: 'vm-bridge-one',
          root_pass: 'Correct-Horse-Battery-9',
          authorized_keys: [readFileSync(`${key}.pub`, 'utf8').trim()],
          firewall_id: ids.firewall,
          private_ip: true,
        });
        expect(created.status).toBe(200);
        ids.instance = created.body.id as number;
        ipv4 = (created.body.ipv4 as string[]).find((a) => !a.startsWith('192.168.')) as string;
        privateIpv4 = (created.body.ipv4 as string[]).find((a) =>
          a.startsWith('192.168.'),
        ) as string;
        expect(privateIpv4).toBeDefined();
        await until(
          'instance running',
          BOOT_MS,
          async () =>
            (await api('GET', `/v4/compute/instances/${ids.instance}`)).body.status === 'running',
        );
        const m = await machine(ids.instance);
        expect(m).toMatchObject({
          state: 'running',
          tap: `stx${ids.instance}`,
          ssh: null,
          firewall_table: `stratus_${ids.instance}`,
        });
        // The tap is on the bridge, and the host holds the address's gateway on it.
        expect(run('ip', ['-o', 'link', 'show', `stx${ids.instance}`]).stdout).toContain(
          `master ${BRIDGE}`,
        );
        const gateway = `${ipv4.split('.').slice(0, 3).join('.')}.1`;
        expect(run('ip', ['-o', 'addr', 'show', 'dev', BRIDGE]).stdout).toContain(` ${gateway}/24`);
        // The private address has no gateway: its network is routed to the bridge.
        expect(run('ip', ['route', 'get', privateIpv4]).stdout).toContain(`dev ${BRIDGE}`);
        const t = table(ids.instance);
        expect(t.status).toBe(0);
        expect(t.stdout).toContain(`oifname "stx${ids.instance}" jump inbound`);
        expect(t.stdout).toMatch(/tcp dport 22 return/);
      },
      STEP_TIMEOUT,
    );

    it(
      'ssh: root@<the API ipv4> answers with the key, and the guest has the label as its hostname',
      async () => {
        expect(await sshUp()).toBe('vm-bridge-one');
        // The guest configured the seed's static addresses (not DHCP: there is none on the bridge).
        const addrs = ssh('ip -4 -o addr show dev eth0');
        expect(addrs).toContain(` ${ipv4}/24`);
        expect(addrs).toContain(` ${privateIpv4}/17`);
        // The private address answers too.
        expect(sshRun(22, key, 'hostname', 20, privateIpv4)?.trim()).toBe('vm-bridge-one');
      },
      STEP_TIMEOUT,
    );

    it(
      'replaceFirewallRules: a rule change that drops TCP 22 closes the port; back, it opens again',
      async () => {
        const id = ids.instance as number;
        expect(await tcpOpens(ipv4, 22)).toBe(true);
        expect(
          (await api('PUT', `/v4/networking/firewalls/${ids.firewall}/rules`, inbound22('DROP')))
            .status,
        ).toBe(200);
        // The host agent's next pass applies the new table.
        await until('the new table', 60_000, async () => table(id).stdout.includes('dport 80'));
        expect(await tcpOpens(ipv4, 22)).toBe(false);
        expect(
          (await api('PUT', `/v4/networking/firewalls/${ids.firewall}/rules`, inbound22('ACCEPT')))
            .status,
        ).toBe(200);
        await until('the port open again', 60_000, () => tcpOpens(ipv4, 22));
        expect(ssh('hostname')?.trim()).toBe('vm-bridge-one');
      },
      STEP_TIMEOUT,
    );

    it(
      'updateFirewall: a disabled firewall protects nothing (its table goes); enabled, it holds again',
      async () => {
        const id = ids.instance as number;
        await api('PUT', `/v4/networking/firewalls/${ids.firewall}/rules`, inbound22('DROP'));
        await until('the port closed', 60_000, async () => !(await tcpOpens(ipv4, 22)));
        expect(
          (await api('PUT', `/v4/networking/firewalls/${ids.firewall}`, { status: 'disabled' }))
            .status,
        ).toBe(200);
        await until('the table removed', 60_000, async () => table(id).status !== 0);
        expect(await tcpOpens(ipv4, 22)).toBe(true);
        expect((await machine(id)).firewall_table).toBeNull();
        expect(
          (await api('PUT', `/v4/networking/firewalls/${ids.firewall}`, { status: 'enabled' }))
            .status,
        ).toBe(200);
        await until('the table back', 60_000, async () => table(id).status === 0);
        expect(await tcpOpens(ipv4, 22)).toBe(false);
        await api('PUT', `/v4/networking/firewalls/${ids.firewall}/rules`, inbound22('ACCEPT'));
        await until('the port open again', 60_000, () => tcpOpens(ipv4, 22));
      },
      STEP_TIMEOUT,
    );

    it(
      'deleteInstance: no tap, no table and no QEMU process is left, and the bridge goes',
      async () => {
        const id = ids.instance as number;
        const pidFile = path.join(dir, 'data/machines/run', String(id), 'qemu.pid');
        const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) : null;
        expect(pid).not.toBeNull();
        expect((await api('DELETE', `/v4/compute/instances/${id}`)).status).toBe(200);
        await until(
          'instance deleted',
          BOOT_MS,
          async () => (await api('GET', `/v4/compute/instances/${id}`)).status === 404,
        );
        await until('the machine gone', 60_000, async () => !alive(pid as number));
        expect(linkExists(`stx${id}`)).toBe(false);
        expect(table(id).status).not.toBe(0);
        // The driver made the bridge: with its last tap gone, it goes too.
        expect(linkExists(BRIDGE)).toBe(false);
        expect((await api('GET', '/_stratus/machines', undefined, OPERATOR)).body.data).toEqual([]);
        ids.instance = undefined;
      },
      STEP_TIMEOUT,
    );
  },
);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').match(/^\d+ \(.*\) Z /);
  } catch {
    return false;
  }
}
