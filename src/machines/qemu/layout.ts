import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { DiskRef, InstanceRef, VolumeRef } from '../driver.js';

/** A unix socket path must fit sockaddr_un (108 bytes with its NUL). */
const SOCKET_PATH_MAX = 100;

/**
 * Where the QEMU driver keeps its files, under STRATUS_DATA_DIR/machines:
 *
 * ```text
 * regions/<region>/instances/<id>/disk-<diskId>.qcow2   an instance's disks (+ .boot.json: its kernel)
 * regions/<region>/instances/<id>/ssh-port              the host port forwarded to its port 22
 * regions/<region>/volumes/volume-<id>.qcow2            volumes
 * images/private-<id>.qcow2                             captured private images (+ .boot.json)
 * backups/<id>/disk-<key>.qcow2                         backups and snapshots
 * kernels/<sha256>/                                     kernels and initrds disks boot with
 * run/<id>/                                             a running machine: pid, QMP socket, console
 * ```
 *
 * Region folders make a data-center move a move of files (one folder per region here; one host
 * per region in the multi-host design, docs/operations.md).
 */
export class Layout {
  readonly runRoot: string;

  constructor(readonly root: string) {
    const run = path.join(root, 'run');
    // Long data paths would make socket paths too long: runtime files then go to the temp dir.
    this.runRoot =
      Buffer.byteLength(path.join(run, '4294967295', 'serial.sock')) > SOCKET_PATH_MAX
        ? path.join(
            os.tmpdir(),
            `stratus-run-${createHash('sha256').update(root).digest('hex').slice(0, 12)}`,
          )
        : run;
  }

  region(region: string): string {
    return path.join(this.root, 'regions', safe(region));
  }
  instance(i: InstanceRef): string {
    return path.join(this.region(i.region), 'instances', String(i.instanceId));
  }
  disk(d: DiskRef): string {
    return path.join(this.instance(d), `disk-${d.diskId}.qcow2`);
  }
  volume(v: VolumeRef): string {
    return path.join(this.region(v.region), 'volumes', `volume-${v.volumeId}.qcow2`);
  }
  image(imageId: number): string {
    return path.join(this.root, 'images', `private-${imageId}.qcow2`);
  }
  backup(backupId: number): string {
    return path.join(this.root, 'backups', String(backupId));
  }
  backupDisk(backupId: number, key: number): string {
    return path.join(this.backup(backupId), `disk-${key}.qcow2`);
  }
  kernels(): string {
    return path.join(this.root, 'kernels');
  }
  tmp(): string {
    return path.join(this.root, 'tmp');
  }
  run(instanceId: number): RunFiles {
    const dir = path.join(this.runRoot, String(instanceId));
    return {
      dir,
      pid: path.join(dir, 'qemu.pid'),
      qmp: path.join(dir, 'qmp.sock'),
      serial: path.join(dir, 'serial.sock'),
      console: path.join(dir, 'console.log'),
      seed: path.join(dir, 'seed.img'),
      spec: path.join(dir, 'machine.json'),
      firewall: path.join(dir, 'firewall.nft'),
    };
  }
}

export interface RunFiles {
  dir: string;
  pid: string;
  qmp: string;
  serial: string;
  console: string;
  seed: string;
  spec: string;
  /** Bridge mode: the nft script of the firewalls applied now (absent: no table). */
  firewall: string;
}

/** The sidecar of an image file that names the kernel it boots with. */
export const bootFileOf = (imageFile: string): string =>
  imageFile.replace(/\.qcow2$/, '.boot.json');

/** Region ids are the catalogue's (`us-east`); anything else is kept out of paths. */
function safe(region: string): string {
  if (!/^[a-z0-9-]{1,64}$/.test(region)) throw new Error(`unexpected region id ${region}`);
  return region;
}

/** QEMU option values escape a comma by doubling it. */
export const qemuPath = (p: string): string => p.replaceAll(',', ',,');
