import { type ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { machinesConfig } from '../../config/machines-config.js';
import type { BlobStore } from '../../storage/index.js';
import type { MachineFirewall } from '../driver.js';
import { conflictingRoutes, networkOf, QemuDriver } from './qemu-driver.js';

/**
 * The QEMU driver's firewall tables in bridge mode, with a stand-in `nft` on PATH that records
 * what it is asked (and, for its check mode, says whether the kernel has bridge conntrack). The
 * machine is a stand-in process with the driver's pid file; nothing touches the host's network.
 */
const ID = 41;
let dir: string;
let bin: string;
let log: string;
let machine: ChildProcess | undefined;
const savedPath = process.env.PATH;

const fw = (ports: string): MachineFirewall => ({
  id: 7,
  inboundPolicy: 'DROP',
  outboundPolicy: 'ACCEPT',
  rules: {
    inbound: [{ protocol: 'TCP', ports, addresses: { ipv4: ['0.0.0.0/0'] }, action: 'ACCEPT' }],
    outbound: [],
  },
});

/** What the stand-in nft was asked: one entry per call, with the script it read. */
const calls = (): { args: string; script: string }[] =>
  existsSync(log)
    ? readFileSync(log, 'utf8')
        .split('\n=====\n')
        .filter((c) => c.trim() !== '')
        .map((c) => {
          const [args = '', ...rest] = c.split('\n');
          return { args, script: rest.join('\n') };
        })
    : [];

function driver(network: 'bridge' | 'user', dataDir: string): QemuDriver {
  const cfg = machinesConfig(
    { STRATUS_COMPUTE_DRIVER: 'qemu', STRATUS_VM_NETWORK: network, STRATUS_VM_BRIDGE: 'stxtest0' },
    dataDir,
  );
  return new QemuDriver(cfg, {} as BlobStore, pino({ level: 'silent' }));
}

/** A running machine as the driver finds it: its run record and a live process with its pid file. */
function fakeMachine(d: QemuDriver, tap: string | null): void {
  const files = d.layout.run(ID);
  mkdirSync(files.dir, { recursive: true });
  writeFileSync(
    files.spec,
    JSON.stringify({
      instanceId: ID,
      region: 'us-east',
      vcpus: 1,
      memoryMb: 128,
      accel: 'tcg',
      sshPort: null,
      tap,
      startedAt: new Date().toISOString(),
      devices: [],
    }),
  );
  // The driver knows its processes by their pid file on the command line.
  machine = spawn('sh', ['-c', 'sleep 60', files.pid], { stdio: 'ignore' });
  writeFileSync(files.pid, String(machine.pid));
}

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'stratus-nft-'));
  bin = path.join(dir, 'bin');
  log = path.join(dir, 'nft.log');
  mkdirSync(bin);
  // The stand-in: records the arguments and the script; `-c` (the conntrack probe) answers as
  // NFT_CONNTRACK says; `ip` does nothing.
  writeFileSync(
    path.join(bin, 'nft'),
    `#!/bin/sh
[ "$1" = --version ] && { echo "nftables v1.0.6"; exit 0; }
if [ "$1" = -c ]; then [ "$NFT_CONNTRACK" = 1 ]; exit $?; fi
{ echo "$*"; cat "$2"; printf '\\n=====\\n'; } >> "${log}"
`,
  );
  writeFileSync(path.join(bin, 'ip'), '#!/bin/sh\nexit 0\n');
  chmodSync(path.join(bin, 'nft'), 0o755);
  chmodSync(path.join(bin, 'ip'), 0o755);
  process.env.PATH = `${bin}:${savedPath}`;
});

afterEach(() => {
  machine?.kill('SIGKILL');
  machine = undefined;
  rmSync(log, { force: true });
  delete process.env.NFT_CONNTRACK;
});

afterAll(() => {
  process.env.PATH = savedPath;
  rmSync(dir, { recursive: true, force: true });
});

describe('QEMU driver: firewall tables in bridge mode', () => {
  it('applyFirewall: applies the table once, again only when its text changes, and removes it when none is left', async () => {
    const d = driver('bridge', path.join(dir, 'a'));
    fakeMachine(d, `stx${ID}`);
    expect(await d.applyFirewall(ID, [fw('22')])).toBe(true);
    expect(calls()).toHaveLength(1);
    expect(calls()[0]?.args).toMatch(/^-f /);
    expect(calls()[0]?.script).toContain(`table bridge stratus_${ID} {`);
    expect(calls()[0]?.script).toContain('tcp th dport 22 return');
    mkdirSync(d.layout.instance({ instanceId: ID, region: 'us-east' }), { recursive: true });
    expect((await d.list())[0]?.firewallTable).toBe(`stratus_${ID}`);
    // The same firewalls: nothing to do.
    expect(await d.applyFirewall(ID, [fw('22')])).toBe(false);
    expect(calls()).toHaveLength(1);
    expect(readFileSync(d.layout.run(ID).firewall, 'utf8')).toContain('dport 22 return');
    // A changed rule: the table is replaced.
    expect(await d.applyFirewall(ID, [fw('2222')])).toBe(true);
    expect(calls()).toHaveLength(2);
    expect(calls()[1]?.script).toContain('dport 2222 return');
    // No firewall left: the table goes, once.
    expect(await d.applyFirewall(ID, [])).toBe(true);
    expect(calls()[2]?.script).toBe(
      `table bridge stratus_${ID}\ndelete table bridge stratus_${ID}\n`,
    );
    expect(existsSync(d.layout.run(ID).firewall)).toBe(false);
    expect((await d.list())[0]?.firewallTable).toBeNull();
    expect(await d.applyFirewall(ID, [])).toBe(false);
    expect(calls()).toHaveLength(3);
  });

  it('applyFirewall: without bridge conntrack the table carries reply rules; with it, ct state', async () => {
    const without = driver('bridge', path.join(dir, 'b'));
    fakeMachine(without, `stx${ID}`);
    await without.applyFirewall(ID, [fw('22')]);
    expect(calls()[0]?.script).toContain('tcp flags & (syn | ack) != syn');
    expect(calls()[0]?.script).not.toContain('ct state');
    machine?.kill('SIGKILL');
    rmSync(log, { force: true });
    process.env.NFT_CONNTRACK = '1';
    const withCt = driver('bridge', path.join(dir, 'c'));
    fakeMachine(withCt, `stx${ID}`);
    await withCt.applyFirewall(ID, [fw('22')]);
    expect(calls()[0]?.script).toContain('ct state established,related accept');
    expect(calls()[0]?.script).not.toContain('tcp flags');
  });

  it('applyFirewall: nothing in user-mode networking, nor for a machine that does not run', async () => {
    const user = driver('user', path.join(dir, 'd'));
    fakeMachine(user, null);
    expect(user.firewalls).toBe(false);
    expect(await user.applyFirewall(ID, [fw('22')])).toBe(false);
    machine?.kill('SIGKILL');
    const bridge = driver('bridge', path.join(dir, 'e'));
    expect(bridge.firewalls).toBe(true);
    expect(await bridge.applyFirewall(ID, [fw('22')])).toBe(false);
    expect(calls()).toEqual([]);
  });

  it('networkOf: the network a private address is routed through on the bridge', () => {
    expect(networkOf('192.168.130.9', 17)).toBe('192.168.128.0/17');
    expect(networkOf('198.18.0.7', 24)).toBe('198.18.0.0/24');
    expect(networkOf('10.1.2.3', 32)).toBe('10.1.2.3/32');
  });

  it('conflictingRoutes: a host network holding the address clashes; the default route and the bridge do not', () => {
    const host = [
      'default via 192.0.2.1 dev eth0 ',
      '192.0.2.0/24 dev eth0 proto kernel scope link src 192.0.2.2 ',
      '',
    ].join('\n');
    expect(conflictingRoutes(host, 'stratus0')).toEqual([
      '192.0.2.0/24 dev eth0 proto kernel scope link src 192.0.2.2',
    ]);
    expect(conflictingRoutes('default via 192.0.2.1 dev eth0 \n', 'stratus0')).toEqual([]);
    expect(
      conflictingRoutes(
        '198.18.0.0/24 dev stratus0 proto kernel scope link src 198.18.0.1 \n192.168.128.0/17 dev stratus0 scope link \n',
        'stratus0',
      ),
    ).toEqual([]);
  });

  it('stop: the machine table goes with the machine', async () => {
    const d = driver('bridge', path.join(dir, 'f'));
    fakeMachine(d, `stx${ID}`);
    await d.applyFirewall(ID, [fw('22')]);
    await d.stop(ID);
    expect(calls().at(-1)?.script).toBe(
      `table bridge stratus_${ID}\ndelete table bridge stratus_${ID}\n`,
    );
    expect(existsSync(d.layout.run(ID).firewall)).toBe(false);
  });
});
