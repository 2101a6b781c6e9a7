import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { MachineError } from '../driver.js';
import { bootFileOf, type Layout } from './layout.js';

/** How a disk boots when its config's kernel is one of the host's (not GRUB or direct disk). */
export interface BootInfo {
  kernel: string;
  initrd: string | null;
  /** Extra kernel arguments the image asks for. */
  cmdline: string;
}

const DISK_NAMES = [
  ['disk.qcow2', 'qcow2'],
  ['disk.raw', 'raw'],
  ['disk.img', 'raw'],
] as const;

/**
 * The operator's images folder (STRATUS_VM_IMAGES):
 *
 * ```text
 * <name>/disk.qcow2 (or disk.raw, disk.img)   the public image `compute/<name>`: a filesystem at offset 0
 * <name>/vmlinuz, <name>/initrd.img           the kernel it boots with (optional), <name>/cmdline
 * kernel/vmlinuz, kernel/initrd.img           the kernel of disks that bring none (uploads, empty disks)
 * rescue/vmlinuz, rescue/initrd.img           the rescue system (runs from memory)
 * ```
 *
 * A disk made from an image keeps a copy of its kernel in the driver's kernel store (by content),
 * so replacing the folder's files changes new deployments only.
 */
export class ImageFolder {
  private readonly copied = new Map<string, string>();

  constructor(
    private readonly dir: string,
    private readonly layout: Layout,
  ) {}

  /** The folder of a public image id (`compute/debian12` → `<dir>/debian12`). */
  private publicDir(image: string): string | undefined {
    const m = /^compute\/([A-Za-z0-9._-]+)$/.exec(image);
    return m ? path.join(this.dir, m[1] as string) : undefined;
  }

  publicDisk(image: string): { file: string; format: 'qcow2' | 'raw' } | undefined {
    const dir = this.publicDir(image);
    if (!dir) return undefined;
    for (const [name, format] of DISK_NAMES) {
      const file = path.join(dir, name);
      if (existsSync(file)) return { file, format };
    }
    return undefined;
  }

  /** Why `image` cannot be deployed here, or undefined. Private images are checked by their job. */
  problem(image: string): string | undefined {
    if (image.startsWith('private/')) return undefined;
    if (this.publicDisk(image)) return undefined;
    return `The image ${image} is not available on this host.`;
  }

  /** The kernel a folder brings (vmlinuz, initrd.img, cmdline), copied into the kernel store. */
  async bootOf(folder: string): Promise<BootInfo | null> {
    const kernel = path.join(folder, 'vmlinuz');
    if (!existsSync(kernel)) return null;
    const initrd = path.join(folder, 'initrd.img');
    const cmdlineFile = path.join(folder, 'cmdline');
    return {
      kernel: await this.store(kernel),
      initrd: existsSync(initrd) ? await this.store(initrd) : null,
      cmdline: existsSync(cmdlineFile) ? (await readFile(cmdlineFile, 'utf8')).trim() : '',
    };
  }

  async publicBoot(image: string): Promise<BootInfo | null> {
    const dir = this.publicDir(image);
    return dir ? this.bootOf(dir) : null;
  }

  /** The host's default kernel (`kernel/`), for disks that bring none. */
  async defaultBoot(): Promise<BootInfo> {
    const boot = await this.bootOf(path.join(this.dir, 'kernel'));
    if (!boot)
      throw new MachineError(
        `No kernel to boot: put vmlinuz (and initrd.img) in ${path.join(this.dir, 'kernel')}.`,
      );
    return boot;
  }

  async rescueBoot(): Promise<BootInfo> {
    const boot = await this.bootOf(path.join(this.dir, 'rescue'));
    if (!boot)
      throw new MachineError(
        `No rescue system: put vmlinuz and initrd.img in ${path.join(this.dir, 'rescue')}.`,
      );
    return boot;
  }

  /** A kernel file copied into the store under its SHA-256 (once per file version). */
  private async store(file: string): Promise<string> {
    const st = await stat(file);
    const cacheKey = `${file}:${st.size}:${st.mtimeMs}`;
    const known = this.copied.get(cacheKey);
    if (known && existsSync(known)) return known;
    const hash = createHash('sha256');
    await pipeline(createReadStream(file), hash);
    const digest = hash.digest('hex');
    const dir = path.join(this.layout.kernels(), digest.slice(0, 32));
    const target = path.join(dir, path.basename(file));
    if (!existsSync(target)) {
      await mkdir(dir, { recursive: true });
      await copyFile(file, `${target}.part`);
      await rename(`${target}.part`, target);
    }
    this.copied.set(cacheKey, target);
    return target;
  }
}

/** Reads the boot sidecar of an image file (null: it brings no kernel). */
export async function readBoot(imageFile: string): Promise<BootInfo | null> {
  try {
    return JSON.parse(await readFile(bootFileOf(imageFile), 'utf8')) as BootInfo;
  } catch {
    return null;
  }
}

export async function writeBoot(imageFile: string, boot: BootInfo | null): Promise<void> {
  if (boot) await writeFile(bootFileOf(imageFile), JSON.stringify(boot));
}

/** Copies the sidecar of one image file to another (clones, captures, backups, restores). */
export async function copyBoot(from: string, to: string): Promise<void> {
  await writeBoot(to, await readBoot(from));
}
