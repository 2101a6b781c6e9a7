import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { machinesConfig } from '../../config/machines-config.js';
import type { BlobStore } from '../../storage/index.js';
import { QemuDriver } from './qemu-driver.js';
import { toolEnv } from './tools.js';

/** The disk work of the QEMU driver on real files (qemu-img, e2fsprogs): no machine boots here. */
// The test reads disks with e2fsprogs as the driver finds them (in /usr/sbin, also for non-root).
process.env.PATH = toolEnv().PATH;
const tools = ['qemu-img', 'mke2fs', 'debugfs', 'mkswap'].every(
  (t) => spawnSync('sh', ['-c', `command -v ${t}`], { env: toolEnv() }).status === 0,
);
const inCi = process.env.CI === 'true' || process.env.CI === '1';

describe.runIf(!tools && inCi)('qemu driver files: prerequisites', () => {
  it('qemu driver files: qemu-img and e2fsprogs are installed', () => {
    throw new Error('apt-get install -y qemu-utils e2fsprogs (.ci/run installs them)');
  });
});

describe.skipIf(!tools)('QEMU driver: disks, volumes, images and backups as files', () => {
  let dir: string;
  let d: QemuDriver;
  const inst = { instanceId: 5, region: 'us-east' };

  /** A file's text inside the ext filesystem of a disk image. */
  const readFile = (image: string, file: string) => {
    const raw = path.join(dir, `read-${Math.random()}.raw`);
    execFileSync('qemu-img', ['convert', '-U', '-O', 'raw', image, raw]);
    try {
      return execFileSync('debugfs', ['-R', `cat ${file}`, raw], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      });
    } finally {
      rmSync(raw, { force: true });
    }
  };
  const fsBytes = (image: string) => {
    const raw = path.join(dir, `fs-${Math.random()}.raw`);
    execFileSync('qemu-img', ['convert', '-U', '-O', 'raw', image, raw]);
    try {
      const out = execFileSync('dumpe2fs', ['-h', raw], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      const n = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(out)?.[1]);
      return n('Block count') * n('Block size');
    } finally {
      rmSync(raw, { force: true });
    }
  };
  const virtualSize = (f: string) =>
    JSON.parse(execFileSync('qemu-img', ['info', '-U', '--output=json', f], { encoding: 'utf8' }))[
      'virtual-size'
    ];

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'stratus-qd-'));
    const tree = path.join(dir, 'tree');
    mkdirSync(tree);
    writeFileSync(path.join(tree, 'hello'), 'from the image\n');
    const images = path.join(dir, 'images');
    mkdirSync(path.join(images, 'tiny'), { recursive: true });
    execFileSync('mke2fs', [
      '-q',
      '-F',
      '-t',
      'ext4',
      '-b',
      '4096',
      '-d',
      tree,
      path.join(dir, 'tiny.raw'),
      '16M',
    ]);
    execFileSync('qemu-img', [
      'convert',
      '-O',
      'qcow2',
      path.join(dir, 'tiny.raw'),
      path.join(images, 'tiny/disk.qcow2'),
    ]);
    writeFileSync(path.join(images, 'tiny/vmlinuz'), 'not really a kernel');
    const cfg = machinesConfig(
      { STRATUS_COMPUTE_DRIVER: 'qemu', STRATUS_VM_IMAGES: images },
      path.join(dir, 'data'),
    );
    d = new QemuDriver(cfg, {} as BlobStore, pino({ level: 'silent' }));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('createDisk: from an image, the filesystem fills the disk and the kernel comes along', async () => {
    await d.createDisk(
      { ...inst, diskId: 1 },
      { sizeMb: 64, filesystem: 'ext4', source: { kind: 'image', image: 'compute/tiny' } },
    );
    const file = d.layout.disk({ ...inst, diskId: 1 });
    expect(virtualSize(file)).toBe(64 * 1048576);
    expect(fsBytes(file)).toBe(64 * 1048576);
    expect(readFile(file, '/hello')).toBe('from the image\n');
    expect(existsSync(file.replace('.qcow2', '.boot.json'))).toBe(true);
    expect(await d.listDisks(inst)).toEqual([1]);
  });

  it('createDisk: an image the host lacks is refused', async () => {
    expect(d.imageProblem('compute/debian12')).toBe(
      'The image compute/debian12 is not available on this host.',
    );
    expect(d.imageProblem('compute/tiny')).toBeUndefined();
    await expect(
      d.createDisk(
        { ...inst, diskId: 9 },
        { sizeMb: 64, filesystem: 'ext4', source: { kind: 'image', image: 'compute/debian12' } },
      ),
    ).rejects.toThrow(/not available/);
  });

  it('resizeDisk: grows and shrinks the filesystem with the disk, keeping the data', async () => {
    const ref = { ...inst, diskId: 1 };
    await d.resizeDisk(ref, { sizeMb: 96, filesystem: 'ext4' });
    expect(fsBytes(d.layout.disk(ref))).toBe(96 * 1048576);
    await d.resizeDisk(ref, { sizeMb: 40, filesystem: 'ext4' });
    expect(virtualSize(d.layout.disk(ref))).toBe(40 * 1048576);
    expect(fsBytes(d.layout.disk(ref))).toBe(40 * 1048576);
    expect(readFile(d.layout.disk(ref), '/hello')).toBe('from the image\n');
  });

  it('createDisk: empty ext4 and swap disks are formatted; a clone copies the bytes', async () => {
    await d.createDisk(
      { ...inst, diskId: 2 },
      { sizeMb: 32, filesystem: 'ext4', source: { kind: 'empty' } },
    );
    expect(fsBytes(d.layout.disk({ ...inst, diskId: 2 }))).toBe(32 * 1048576);
    await d.createDisk(
      { ...inst, diskId: 3 },
      { sizeMb: 16, filesystem: 'swap', source: { kind: 'empty' } },
    );
    expect(virtualSize(d.layout.disk({ ...inst, diskId: 3 }))).toBe(16 * 1048576);
    await d.createDisk(
      { ...inst, diskId: 4 },
      { sizeMb: 40, filesystem: 'ext4', source: { kind: 'disk', from: { ...inst, diskId: 1 } } },
    );
    expect(readFile(d.layout.disk({ ...inst, diskId: 4 }), '/hello')).toBe('from the image\n');
  });

  it('captureBackup and createDisk from a backup: the backup keeps the bytes after the disk goes', async () => {
    await d.captureBackup(70, [{ ...inst, diskId: 1 }]);
    await d.deleteDisk({ ...inst, diskId: 1 });
    await d.createDisk(
      { instanceId: 6, region: 'us-east', diskId: 8 },
      { sizeMb: 40, filesystem: 'ext4', source: { kind: 'backup', backupId: 70, key: 1 } },
    );
    expect(readFile(d.layout.disk({ instanceId: 6, region: 'us-east', diskId: 8 }), '/hello')).toBe(
      'from the image\n',
    );
  });

  it('moveInstance: a data-center move takes the disks and the volumes to the new region', async () => {
    await d.createVolume({ volumeId: 3, region: 'us-east' }, 1);
    await d.moveInstance(5, 'us-east', 'eu-west', [3]);
    expect(await d.listDisks({ instanceId: 5, region: 'eu-west' })).toEqual([2, 3, 4]);
    expect(await d.listDisks(inst)).toEqual([]);
    expect(existsSync(d.layout.volume({ volumeId: 3, region: 'eu-west' }))).toBe(true);
  });

  it('volumes: created empty, grown, copied; sweep removes the files whose rows are gone', async () => {
    const v = { volumeId: 4, region: 'us-east' };
    await d.createVolume(v, 1);
    await d.resizeVolume(v, 2);
    expect(virtualSize(d.layout.volume(v))).toBe(2 * 1073741824);
    await d.createVolume({ volumeId: 5, region: 'us-east' }, 2, v);
    await d.captureImage(12, { instanceId: 5, region: 'eu-west', diskId: 4 });
    await d.sweep({ volumes: new Set([5]), images: new Set(), backups: new Set() });
    expect(existsSync(d.layout.volume(v))).toBe(false);
    expect(existsSync(d.layout.volume({ volumeId: 5, region: 'us-east' }))).toBe(true);
    expect(existsSync(d.layout.volume({ volumeId: 3, region: 'eu-west' }))).toBe(false);
    expect(existsSync(d.layout.image(12))).toBe(false);
    expect(existsSync(d.layout.backup(70))).toBe(false);
  });

  it('destroy: every file of an instance that is not running goes', async () => {
    await d.destroy({ instanceId: 5, region: 'eu-west' });
    expect(await d.listDisks({ instanceId: 5, region: 'eu-west' })).toEqual([]);
    expect(await d.list()).toEqual([
      expect.objectContaining({ instanceId: 6, state: 'stopped', pid: null }),
    ]);
  });
});
