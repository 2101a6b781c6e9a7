import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

/** What the QEMU driver's end-to-end test needs from the host, by Debian package. */
const TOOLS: [string, string][] = [
  ['qemu-system-x86_64', 'qemu-system-x86'],
  ['qemu-img', 'qemu-utils'],
  ['mke2fs', 'e2fsprogs'],
  ['mkfs.vfat', 'dosfstools'],
  ['mcopy', 'mtools'],
  ['cpio', 'cpio'],
  ['ssh', 'openssh-client'],
  ['ssh-keygen', 'openssh-client'],
];

function has(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

/** The Debian packages the QEMU driver's test lacks here (empty: it can run). */
export function missingVmPackages(): string[] {
  const missing = new Set<string>();
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

/** Runs a command over SSH on a forwarded port; returns stdout, or null when it fails. */
export function sshRun(port: number, key: string, command: string, timeoutS = 20): string | null {
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
        'root@127.0.0.1',
        command,
      ],
      { encoding: 'utf8', timeout: timeoutS * 1000, stdio: ['ignore', 'pipe', 'ignore'] },
    );
  } catch {
    return null;
  }
}
