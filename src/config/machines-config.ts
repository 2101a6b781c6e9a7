import os from 'node:os';
import path from 'node:path';
import { ConfigError } from './config-error.js';
import type { RawEnv } from './env.js';

/** What runs compute instances: nothing (a simulation of the life cycle) or QEMU processes. */
export type ComputeDriverName = 'simulated' | 'qemu';
export type VmAccel = 'auto' | 'kvm' | 'tcg';
export type VmNetwork = 'user' | 'bridge';

/** The settings of the compute driver (STRATUS_COMPUTE_DRIVER and STRATUS_VM_*). */
export interface MachinesConfig {
  readonly driver: ComputeDriverName;
  /** STRATUS_VM_IMAGES: the operator's folder of bootable images, kernels and the rescue system. */
  readonly imagesDir: string;
  /** Where the driver keeps disks, volumes, images, backups and its processes' files. */
  readonly stateDir: string;
  readonly qemu: string;
  readonly qemuImg: string;
  /** `auto` probes KVM with a real boot and falls back to TCG. */
  readonly accel: VmAccel;
  /** A type's memory is multiplied by this (at least 64 MB), so small hosts can run instances. */
  readonly memoryScale: number;
  /** A type's vCPUs are multiplied by this (at least 1). */
  readonly cpuScale: number;
  /** What the host may give its running instances, after scaling. */
  readonly hostMemoryMb: number;
  readonly hostVcpus: number;
  readonly network: VmNetwork;
  /** Bridge mode: the bridge every instance's tap device joins. */
  readonly bridge: string;
  /** User mode: host ports forwarded to each instance's port 22, on 127.0.0.1. */
  readonly sshPorts: { readonly from: number; readonly to: number };
  /** How long a shutdown waits for the guest after the ACPI power button before forcing it off. */
  readonly shutdownGraceMs: number;
  /** How often the host agent looks at the running machines (power-offs, volumes, stats). */
  readonly watchMs: number;
}

const set = (v: string | undefined): string | undefined =>
  v === undefined || v.trim() === '' ? undefined : v.trim();

function number(
  name: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max: number,
) {
  const v = set(value);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < min || n > max)
    throw new ConfigError(name, `must be a number between ${min} and ${max} (got "${v}")`);
  return n;
}

function integer(
  name: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max: number,
) {
  const v = set(value);
  if (v !== undefined && !/^\d+$/.test(v))
    throw new ConfigError(name, `must be an integer (got "${v}")`);
  return number(name, v, fallback, min, max);
}

function choice<T extends string>(
  name: string,
  value: string | undefined,
  allowed: readonly T[],
  fallback: T,
): T {
  const v = set(value);
  if (v === undefined) return fallback;
  if ((allowed as readonly string[]).includes(v)) return v as T;
  throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${v}")`);
}

/**
 * STRATUS_COMPUTE_DRIVER=simulated (default) or qemu, and the QEMU driver's STRATUS_VM_*
 * settings, validated even when the simulated driver is chosen (a typo fails at start).
 */
export function machinesConfig(env: RawEnv, dataDir: string): MachinesConfig {
  const driver = choice(
    'STRATUS_COMPUTE_DRIVER',
    env.STRATUS_COMPUTE_DRIVER,
    ['simulated', 'qemu'] as const,
    'simulated',
  );
  const ports = set(env.STRATUS_VM_SSH_PORTS) ?? '22000-22999';
  const m = /^(\d{1,5})-(\d{1,5})$/.exec(ports);
  const from = Number(m?.[1]);
  const to = Number(m?.[2]);
  if (!m || from < 1024 || to > 65535 || from > to)
    throw new ConfigError(
      'STRATUS_VM_SSH_PORTS',
      `must be a range FROM-TO of ports 1024..65535 (got "${ports}")`,
    );
  const bridge = set(env.STRATUS_VM_BRIDGE) ?? 'stratus0';
  if (!/^[A-Za-z0-9_.-]{1,15}$/.test(bridge))
    throw new ConfigError(
      'STRATUS_VM_BRIDGE',
      `must be a network interface name (got "${bridge}")`,
    );
  const totalMb = Math.floor(os.totalmem() / 1048576);
  return Object.freeze({
    driver,
    imagesDir: path.resolve(set(env.STRATUS_VM_IMAGES) ?? path.join(dataDir, 'vm-images')),
    stateDir: path.join(dataDir, 'machines'),
    qemu: set(env.STRATUS_QEMU) ?? 'qemu-system-x86_64',
    qemuImg: set(env.STRATUS_QEMU_IMG) ?? 'qemu-img',
    accel: choice(
      'STRATUS_VM_ACCEL',
      env.STRATUS_VM_ACCEL,
      ['auto', 'kvm', 'tcg'] as const,
      'auto',
    ),
    memoryScale: number('STRATUS_VM_MEMORY_SCALE', env.STRATUS_VM_MEMORY_SCALE, 1, 0.001, 1),
    cpuScale: number('STRATUS_VM_CPU_SCALE', env.STRATUS_VM_CPU_SCALE, 1, 0.001, 1),
    hostMemoryMb: integer(
      'STRATUS_VM_HOST_MEMORY_MB',
      env.STRATUS_VM_HOST_MEMORY_MB,
      Math.max(64, Math.floor(totalMb * 0.75)),
      64,
      64 * 1024 * 1024,
    ),
    hostVcpus: integer(
      'STRATUS_VM_HOST_VCPUS',
      env.STRATUS_VM_HOST_VCPUS,
      os.cpus().length * 4,
      1,
      65536,
    ),
    network: choice(
      'STRATUS_VM_NETWORK',
      env.STRATUS_VM_NETWORK,
      ['user', 'bridge'] as const,
      'user',
    ),
    bridge,
    sshPorts: Object.freeze({ from, to }),
    shutdownGraceMs:
      integer('STRATUS_VM_SHUTDOWN_GRACE', env.STRATUS_VM_SHUTDOWN_GRACE, 30, 0, 3600) * 1000,
    watchMs: integer('STRATUS_VM_WATCH_MS', env.STRATUS_VM_WATCH_MS, 2000, 100, 600_000),
  });
}
