import type { BootInfo } from './images.js';
import { qemuPath, type RunFiles } from './layout.js';

/** A disk or volume on the machine's SCSI bus: `target` is its slot's index (sda = 0). */
export interface PlannedDevice {
  kind: 'disk' | 'volume';
  id: number;
  file: string;
  target: number;
  /** Volumes show as `/dev/disk/by-id/scsi-0Compute_Volume_<label>` in the guest. */
  label?: string;
}

export interface LaunchPlan {
  instanceId: number;
  accel: 'kvm' | 'tcg';
  vcpus: number;
  memoryMb: number;
  run: RunFiles;
  /** null: the firmware boots the first disk's own loader (`compute/grub2`, `direct-disk`). */
  boot: BootInfo | null;
  cmdline: string;
  devices: PlannedDevice[];
  net: { mode: 'user'; sshPort: number } | { mode: 'bridge'; tap: string };
  mac: string;
}

/** The node and device names of a disk or volume on the bus (QMP hot-plug uses the same). */
export const nodeName = (d: { kind: 'disk' | 'volume'; id: number }) => `${d.kind}${d.id}`;
export const deviceId = (d: { kind: 'disk' | 'volume'; id: number }) => `dev-${d.kind}${d.id}`;

/** The scsi-hd properties of a device (QMP `device_add` takes the same). */
export function scsiProperties(d: PlannedDevice): Record<string, string | number> {
  const props: Record<string, string | number> = {
    driver: 'scsi-hd',
    bus: 'scsi0.0',
    channel: 0,
    'scsi-id': d.target,
    lun: 0,
    drive: nodeName(d),
    id: deviceId(d),
  };
  if (d.kind === 'volume') {
    props.vendor = 'Compute';
    props.product = 'Volume';
    props.serial = (d.label ?? `volume${d.id}`).slice(0, 36);
  } else {
    props.serial = `disk-${d.id}`;
  }
  return props;
}

const kv = (o: Record<string, string | number>) =>
  Object.entries(o)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? qemuPath(v) : v}`)
    .join(',');

/**
 * The QEMU command line of a machine: daemonized with a pid file (it outlives the Stratus process
 * that started it, which finds it again through its files), a QMP socket, the serial console on a
 * socket with a log, `-no-shutdown` (a guest power-off leaves the process for the host agent to
 * see), a virtio-scsi bus for disks and volumes (sda..sdh in slot order), the NoCloud seed on a
 * virtio disk, and one virtio NIC.
 */
export function qemuArgs(p: LaunchPlan): string[] {
  const args = [
    '-name',
    `stratus-${p.instanceId},process=stratus-vm-${p.instanceId}`,
    '-machine',
    `pc,accel=${p.accel}`,
    '-cpu',
    p.accel === 'kvm' ? 'host' : 'max',
    '-smp',
    String(p.vcpus),
    '-m',
    String(p.memoryMb),
    '-nodefaults',
    '-no-user-config',
    '-display',
    'none',
    '-no-shutdown',
    '-daemonize',
    '-pidfile',
    p.run.pid,
    '-qmp',
    `unix:${qemuPath(p.run.qmp)},server=on,wait=off`,
    '-chardev',
    `socket,id=serial0,path=${qemuPath(p.run.serial)},server=on,wait=off,logfile=${qemuPath(p.run.console)},logappend=on`,
    '-serial',
    'chardev:serial0',
    '-device',
    'virtio-rng-pci',
    '-device',
    'virtio-scsi-pci,id=scsi0',
  ];
  for (const d of p.devices) {
    args.push(
      '-blockdev',
      kv({
        driver: 'qcow2',
        'node-name': nodeName(d),
        'file.driver': 'file',
        'file.filename': d.file,
      }),
      '-device',
      kv(scsiProperties(d)),
    );
  }
  args.push(
    '-blockdev',
    kv({
      driver: 'raw',
      'node-name': 'seed',
      'read-only': 'on',
      'file.driver': 'file',
      'file.filename': p.run.seed,
    }),
    '-device',
    'virtio-blk-pci,drive=seed,id=dev-seed',
  );
  if (p.net.mode === 'user') {
    args.push('-netdev', `user,id=net0,hostfwd=tcp:127.0.0.1:${p.net.sshPort}-:22`);
  } else {
    args.push('-netdev', `tap,id=net0,ifname=${p.net.tap},script=no,downscript=no`);
  }
  args.push('-device', `virtio-net-pci,netdev=net0,mac=${p.mac}`);
  if (p.boot) {
    args.push('-kernel', p.boot.kernel);
    if (p.boot.initrd) args.push('-initrd', p.boot.initrd);
    args.push('-append', p.cmdline);
  }
  return args;
}

/** A stable locally administered MAC address per instance. */
export function macOf(instanceId: number): string {
  const b = [(instanceId >>> 16) & 0xff, (instanceId >>> 8) & 0xff, instanceId & 0xff];
  return `52:54:00:${b.map((x) => x.toString(16).padStart(2, '0')).join(':')}`;
}

/** The kernel command line: root device, console, run level and the image's own arguments. */
export function kernelCmdline(o: {
  rootDevice: string;
  runLevel: string;
  rescue: boolean;
  extra: string;
}): string {
  const parts = [o.rescue ? 'rescue' : `root=${o.rootDevice}`, 'console=ttyS0', 'panic=10'];
  if (!o.rescue && o.runLevel === 'single') parts.push('single');
  if (!o.rescue && o.runLevel === 'binbash') parts.push('init=/bin/bash');
  if (o.extra) parts.push(o.extra);
  return parts.join(' ');
}
