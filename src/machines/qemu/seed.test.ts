import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { kernelCmdline, macOf, qemuArgs } from './command-line.js';
import { Layout } from './layout.js';
import { seedFiles } from './seed.js';

const KEY = `ssh-ed25519 ${'A'.repeat(68)} a long comment # with a hash`;
const seed = {
  instanceId: 'compute-7-2',
  hostname: 'web-1',
  rootPassHash: '$6$abcdefghijklmnop$xyz',
  authorizedKeys: [KEY],
  userData: '#!/bin/sh\necho hi\n',
};
const network = {
  ipv4: [{ address: '198.18.0.7', prefix: 20, gateway: '198.18.0.1' }],
  ipv6: null,
};

describe('NoCloud seed', () => {
  it('seedFiles: vendor data carries the password hash and whole keys, user data as given', () => {
    const f = seedFiles(seed, network, macOf(7), 'user');
    expect(parse(f['meta-data'] as string)).toEqual({
      'instance-id': 'compute-7-2',
      'local-hostname': 'web-1',
    });
    const vendor = f['vendor-data'] as string;
    expect(vendor.startsWith('#cloud-config\n')).toBe(true);
    // Long keys stay on one line (the test image reads them line by line).
    expect(vendor.split('\n').some((l) => l.includes(KEY))).toBe(true);
    expect(parse(vendor)).toMatchObject({
      disable_root: false,
      users: [{ name: 'root', hashed_passwd: seed.rootPassHash, ssh_authorized_keys: [KEY] }],
    });
    expect(f['user-data']).toBe(seed.userData);
    expect(parse(f['network-config'] as string)).toEqual({
      version: 2,
      ethernets: {
        eth0: { match: { macaddress: '52:54:00:00:00:07' }, 'set-name': 'eth0', dhcp4: true },
      },
    });
  });

  it('seedFiles: bridge mode gives the guest its API address and gateway', () => {
    const f = seedFiles(
      { ...seed, rootPassHash: null, userData: null },
      network,
      macOf(7),
      'bridge',
    );
    expect(parse(f['network-config'] as string).ethernets.eth0).toMatchObject({
      addresses: ['198.18.0.7/20'],
      routes: [{ to: '0.0.0.0/0', via: '198.18.0.1' }],
    });
    expect(parse(f['vendor-data'] as string).users[0]).toMatchObject({ lock_passwd: true });
    expect(f['user-data']).toBe('#cloud-config\n{}\n');
  });
});

/**
 * The test image's parser of the seed's network-config (scripts/build-test-image.sh writes it
 * into the guest as /etc/init.d/netcfg.awk), run here with busybox's awk as in the guest (else
 * the host's awk).
 */
function guestNetwork(networkConfig: string): string[] {
  const script = readFileSync(
    path.resolve(import.meta.dirname, '../../../scripts/build-test-image.sh'),
    'utf8',
  );
  const m = /cat > "\$root\/etc\/init\.d\/netcfg\.awk" <<'EOF'\n([\s\S]*?)\nEOF\n/.exec(script);
  if (!m) throw new Error('build-test-image.sh has no netcfg.awk');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'netcfg-'));
  try {
    writeFileSync(path.join(dir, 'netcfg.awk'), m[1] as string);
    writeFileSync(path.join(dir, 'network-config'), networkConfig);
    const busybox = spawnSync('busybox', ['true']).status === 0;
    const r = spawnSync(
      busybox ? 'busybox' : 'awk',
      [...(busybox ? ['awk'] : []), '-f', 'netcfg.awk', 'network-config'],
      { cwd: dir, encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(r.stderr);
    return r.stdout.trim().split('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the test image reads the network-config', () => {
  it('build-test-image netcfg: the static addresses, gateway and name server of the bridge mode seed', () => {
    const f = seedFiles(
      seed,
      {
        ipv4: [
          { address: '198.18.0.7', prefix: 24, gateway: '198.18.0.1' },
          { address: '192.168.130.9', prefix: 17, gateway: null },
        ],
        ipv6: null,
      },
      macOf(7),
      'bridge',
    );
    expect(guestNetwork(f['network-config'] as string)).toEqual([
      'MAC 52:54:00:00:00:07',
      'ADDR 198.18.0.7/24',
      'ADDR 192.168.130.9/17',
      'GW 198.18.0.1',
      'DNS 198.18.0.1',
    ]);
  });

  it('build-test-image netcfg: user mode asks for DHCP', () => {
    const f = seedFiles(seed, network, macOf(7), 'user');
    expect(guestNetwork(f['network-config'] as string)).toContain('DHCP');
    expect(guestNetwork(f['network-config'] as string).some((l) => l.startsWith('ADDR'))).toBe(
      false,
    );
  });

  it('build-test-image netcfg: version 1, its netmask as the prefix', () => {
    expect(
      guestNetwork(
        [
          'version: 1',
          'config:',
          '  - type: physical',
          '    name: eth0',
          '    mac_address: "52:54:00:00:00:07"',
          '    subnets:',
          '      - type: static',
          '        address: 198.18.0.7',
          '        netmask: 255.255.240.0',
          '        gateway: 198.18.0.1',
          '        dns_nameservers:',
          '          - 198.18.0.2',
          '',
        ].join('\n'),
      ).sort(),
    ).toEqual(
      ['MAC 52:54:00:00:00:07', 'ADDR 198.18.0.7/20', 'GW 198.18.0.1', 'DNS 198.18.0.2'].sort(),
    );
  });
});

describe('QEMU command line', () => {
  const layout = new Layout('/srv/stratus/machines');
  const plan = {
    instanceId: 7,
    accel: 'tcg' as const,
    vcpus: 2,
    memoryMb: 256,
    run: layout.run(7),
    boot: { kernel: '/k/vmlinuz', initrd: '/k/initrd.img', cmdline: 'quiet' },
    cmdline: kernelCmdline({
      rootDevice: '/dev/sda',
      runLevel: 'single',
      rescue: false,
      extra: 'quiet',
    }),
    devices: [
      { kind: 'disk' as const, id: 11, file: '/d/disk-11.qcow2', target: 0 },
      { kind: 'volume' as const, id: 3, file: '/v/vol,3.qcow2', target: 2, label: 'data' },
    ],
    net: { mode: 'user' as const, sshPort: 22007 },
    mac: macOf(7),
  };

  it('qemuArgs: slots on SCSI targets, volumes named for by-id, commas escaped, SSH forwarded', () => {
    const args = qemuArgs(plan).join(' ');
    expect(args).toContain(
      'scsi-hd,bus=scsi0.0,channel=0,scsi-id=0,lun=0,drive=disk11,id=dev-disk11,serial=disk-11',
    );
    expect(args).toContain(
      'scsi-id=2,lun=0,drive=volume3,id=dev-volume3,vendor=Compute,product=Volume,serial=data',
    );
    expect(args).toContain('file.filename=/v/vol,,3.qcow2');
    expect(args).toContain('hostfwd=tcp:127.0.0.1:22007-:22');
    expect(args).toContain('-no-shutdown -daemonize -pidfile /srv/stratus/machines/run/7/qemu.pid');
    expect(args).toContain('-append root=/dev/sda console=ttyS0 panic=10 single quiet');
  });

  it('qemuArgs: a disk loader boots without -kernel; bridge mode uses the tap device', () => {
    const args = qemuArgs({ ...plan, boot: null, net: { mode: 'bridge', tap: 'stx7' } });
    expect(args).not.toContain('-kernel');
    expect(args.join(' ')).toContain('tap,id=net0,ifname=stx7,script=no,downscript=no');
  });

  it('Layout: long data paths move the sockets to the temp dir', () => {
    expect(new Layout(`/x/${'d'.repeat(120)}`).runRoot).toMatch(/stratus-run-[0-9a-f]{12}$/);
    expect(layout.runRoot).toBe('/srv/stratus/machines/run');
  });
});
