import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { toolEnv } from '../../src/machines/qemu/tools.js';

/** What the QEMU driver's end-to-end test needs from the host, by Debian package. */
const TOOLS: [string, string][] = [
  ['mke2fs', 'e2fsprogs'],
  ['mkfs.vfat', 'dosfstools'],
  ['mcopy', 'mtools'],
  ['cpio', 'cpio'],
  ['modprobe', 'kmod'],
  ['ssh', 'openssh-client'],
  ['ssh-keygen', 'openssh-client'],
];

/** Looked up as the driver does (toolEnv: the sbin folders a non-root PATH lacks included). */
function has(cmd: string): boolean {
  return (
    spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore', env: toolEnv() }).status === 0
  );
}

function runs(exe: string): boolean {
  return (
    spawnSync(exe, ['--version'], { stdio: 'ignore', timeout: 10_000, env: toolEnv() }).status === 0
  );
}

/** The Debian packages the QEMU driver's test lacks here (empty: it can run). */
export function missingVmPackages(): string[] {
  const missing = new Set<string>();
  // QEMU must run, not only be there (STRATUS_QEMU and STRATUS_QEMU_IMG name other executables,
  // as they do for the server). KVM is not needed: the driver falls back to TCG.
  if (!runs(process.env.STRATUS_QEMU || 'qemu-system-x86_64')) missing.add('qemu-system-x86');
  if (!runs(process.env.STRATUS_QEMU_IMG || 'qemu-img')) missing.add('qemu-utils');
  for (const [cmd, pkg] of TOOLS) if (!has(cmd)) missing.add(pkg);
  if (!existsSync('/bin/busybox') && !has('busybox')) missing.add('busybox-static');
  if (!existsSync('/usr/sbin/dropbear')) missing.add('dropbear-bin');
  const kernels = existsSync('/boot')
    ? readdirSync('/boot').filter((f) => /^vmlinuz-.*-cloud-amd64$/.test(f))
    : [];
  if (kernels.length === 0) missing.add('linux-image-cloud-amd64');
  return [...missing];
}

export const VM_MISSING = (pkgs: string[]) =>
  `The QEMU driver's test needs Debian packages: apt-get install -y ${pkgs.join(' ')} (.ci/run installs them)`;

/**
 * Runs a command over SSH (a forwarded port on 127.0.0.1, or a guest's own address in bridge
 * mode); returns stdout, or null when it fails.
 */
export function sshRun(
  port: number,
  key: string,
  command: string,
  timeoutS = 20,
  host = '127.0.0.1',
): string | null {
  try {
    return execFileSync(
      'ssh',
      [
        '-i',
        key,
        '-p',
        String(port),
        '-o',
        'StrictHostKeyChecking=no',
        '-o',
        'UserKnownHostsFile=/dev/null',
        '-o',
        'BatchMode=yes',
        '-o',
        `ConnectTimeout=${Math.min(timeoutS, 10)}`,
        '-o',
        'LogLevel=ERROR',
        `root@${host}`,
        command,
      ],
      { encoding: 'utf8', timeout: timeoutS * 1000, stdio: ['ignore', 'pipe', 'ignore'] },
    );
  } catch {
    return null;
  }
}
