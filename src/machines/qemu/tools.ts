import { execFile } from 'node:child_process';
import { open, rename, rm, truncate } from 'node:fs/promises';

/** A host tool failed (retried: a lock held by a machine still stopping, say). */
export class HostToolError extends Error {
  override readonly name = 'HostToolError';
}

/**
 * The environment host tools run in: the process's, with the system folders a non-root `PATH`
 * lacks on Debian appended (mke2fs, mkfs.vfat, e2fsck and ip live in /usr/sbin).
 */
export function toolEnv(): NodeJS.ProcessEnv {
  const dirs = (process.env.PATH ?? '').split(':').filter(Boolean);
  for (const d of ['/usr/local/sbin', '/usr/sbin', '/sbin']) if (!dirs.includes(d)) dirs.push(d);
  return { ...process.env, PATH: dirs.join(':') };
}

/** Runs a host tool; a failure carries its stderr (and never a secret: none is passed). */
export function run(
  cmd: string,
  args: readonly string[],
  opts: { timeoutMs?: number; okCodes?: number[] } = {},
): Promise<{ stdout: string; stderr: string; code: number }> {
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      args,
      { timeout: opts.timeoutMs ?? 600_000, maxBuffer: 16 * 1024 * 1024, env: toolEnv() },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        if (err && !(opts.okCodes ?? []).includes(code)) {
          const why = (stderr || err.message).toString().trim().split('\n').slice(-3).join(' ');
          reject(new HostToolError(`${cmd} ${args[0] ?? ''} failed: ${why}`));
          return;
        }
        resolve({ stdout: stdout.toString(), stderr: stderr.toString(), code });
      },
    );
  });
}

/** Filesystems the host formats and resizes with e2fsprogs. */
export const EXT_FILESYSTEMS = new Set(['ext2', 'ext3', 'ext4']);

/** qemu-img and e2fsprogs, on image files: every write goes to a `.part` file renamed at the end. */
export class ImageTools {
  constructor(private readonly qemuImg: string) {}

  async info(path: string): Promise<{ format: string; virtualSize: number }> {
    const { stdout } = await run(this.qemuImg, ['info', '-U', '--output=json', path]);
    const j = JSON.parse(stdout) as { format: string; 'virtual-size': number };
    return { format: j.format, virtualSize: j['virtual-size'] };
  }

  async create(path: string, sizeMb: number): Promise<void> {
    await run(this.qemuImg, ['create', '-q', '-f', 'qcow2', path, `${sizeMb}M`]);
  }

  /** Copies an image's bytes (any format qemu-img reads) into `to` (qcow2, or raw). */
  async convert(
    from: string,
    to: string,
    toFormat: 'qcow2' | 'raw' = 'qcow2',
    fromFormat?: string,
  ) {
    await run(this.qemuImg, [
      'convert',
      '-U',
      ...(fromFormat ? ['-f', fromFormat] : []),
      '-O',
      toFormat,
      from,
      to,
    ]);
  }

  async resize(path: string, sizeMb: number, shrink: boolean): Promise<void> {
    await run(this.qemuImg, ['resize', '-q', ...(shrink ? ['--shrink'] : []), path, `${sizeMb}M`]);
  }

  /** A sparse raw file of the size, formatted as `filesystem` (ext2/3/4 or swap). */
  async format(raw: string, sizeMb: number, filesystem: string, label?: string): Promise<void> {
    await makeSparse(raw, sizeMb);
    if (EXT_FILESYSTEMS.has(filesystem)) {
      await run('mke2fs', ['-q', '-F', '-t', filesystem, ...(label ? ['-L', label] : []), raw]);
    } else if (filesystem === 'swap') {
      await run('mkswap', [raw]);
    }
  }

  /** Grows or shrinks the ext filesystem of a raw file to `sizeMb` (and the file with it). */
  async resizeExt(raw: string, sizeMb: number): Promise<void> {
    // e2fsck answers 1 when it fixed something: the filesystem is fine then.
    await run('e2fsck', ['-f', '-y', raw], { okCodes: [1, 2] });
    const bytes = sizeMb * 1048576;
    const current = await fileSize(raw);
    if (bytes > current) await truncate(raw, bytes);
    await run('resize2fs', ['-f', raw, `${sizeMb}M`]);
    if (bytes < current) await truncate(raw, bytes);
  }
}

export async function makeSparse(path: string, sizeMb: number): Promise<void> {
  const fh = await open(path, 'w');
  await fh.truncate(sizeMb * 1048576);
  await fh.close();
}

async function fileSize(path: string): Promise<number> {
  const fh = await open(path, 'r');
  try {
    return (await fh.stat()).size;
  } finally {
    await fh.close();
  }
}

/** Whether a raw file begins with an ext2/3/4 filesystem (the superblock's magic 0xEF53). */
export async function hasExtFilesystem(raw: string): Promise<boolean> {
  const fh = await open(raw, 'r');
  try {
    const b = Buffer.alloc(2);
    const { bytesRead } = await fh.read(b, 0, 2, 1024 + 56);
    return bytesRead === 2 && b.readUInt16LE(0) === 0xef53;
  } finally {
    await fh.close();
  }
}

/** Writes `final` through `fn(part)` and a rename, so a crash never leaves half a file under its name. */
export async function writeAtomically(final: string, fn: (part: string) => Promise<void>) {
  const part = `${final}.part`;
  await rm(part, { force: true });
  try {
    await fn(part);
    await rename(part, final);
  } catch (err) {
    await rm(part, { force: true });
    throw err;
  }
}
