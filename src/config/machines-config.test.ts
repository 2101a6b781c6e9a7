import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { envToConfig } from './config.js';

const fails = (env: Record<string, string>) => {
  try {
    envToConfig(env);
    return undefined;
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
};

describe('machines config', () => {
  it('envToConfig: the simulated driver by default, the QEMU settings under the data directory', () => {
    const c = envToConfig({ STRATUS_DATA_DIR: '/srv/s' }).machines;
    expect(c).toMatchObject({
      driver: 'simulated',
      imagesDir: path.resolve('/srv/s/vm-images'),
      stateDir: path.resolve('/srv/s/machines'),
      accel: 'auto',
      memoryScale: 1,
      network: 'user',
      sshPorts: { from: 22000, to: 22999 },
      shutdownGraceMs: 30_000,
    });
  });

  it('envToConfig: the QEMU driver settings are read and bad ones name their variable', () => {
    const c = envToConfig({
      STRATUS_COMPUTE_DRIVER: 'qemu',
      STRATUS_VM_MEMORY_SCALE: '0.125',
      STRATUS_VM_SSH_PORTS: '40000-40010',
      STRATUS_VM_HOST_MEMORY_MB: '2048',
    }).machines;
    expect(c).toMatchObject({
      driver: 'qemu',
      memoryScale: 0.125,
      sshPorts: { from: 40000, to: 40010 },
      hostMemoryMb: 2048,
    });
    expect(fails({ STRATUS_COMPUTE_DRIVER: 'libvirt' })).toMatch(/STRATUS_COMPUTE_DRIVER/);
    expect(fails({ STRATUS_VM_MEMORY_SCALE: '2' })).toMatch(/STRATUS_VM_MEMORY_SCALE/);
    expect(fails({ STRATUS_VM_SSH_PORTS: '22-80' })).toMatch(/STRATUS_VM_SSH_PORTS/);
    expect(fails({ STRATUS_VM_ACCEL: 'hvf' })).toMatch(/STRATUS_VM_ACCEL/);
    expect(fails({ STRATUS_VM_BRIDGE: 'a bridge' })).toMatch(/STRATUS_VM_BRIDGE/);
  });
});
