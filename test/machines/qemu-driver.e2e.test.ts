import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DIALECT } from '../helpers/build-test-app.js';
import { createDatabase, dropDatabase } from '../helpers/pg-server.js';
import { missingVmPackages, sshRun, VM_MISSING } from '../helpers/vm.js';
import { type Proc, SERVER_READY, start } from '../scale/processes.js';

/**
 * Compute instances as real virtual machines (STRATUS_COMPUTE_DRIVER=qemu), end to end through
 * the API of a real server, one machine at a time, with the test image the repository builds
 * (scripts/build-test-image.sh). Generous waits: the machines run under software emulation on a
 * shared machine. Without QEMU and the image tools the test is skipped, except under CI=true,
 * where that fails.
 */
const missing = missingVmPackages();
const inCi = process.env.CI === 'true' || process.env.CI === '1';
const ROOT = path.resolve(import.meta.dirname, '../..');
const ADMIN = 'vm-e2e-admin-token-0123456789';
const OPERATOR = 'vm-e2e-operator-token-0123456789';
const BOOT_MS = 300_000;
const STEP_TIMEOUT = 600_000;

describe.runIf(missing.length > 0 && inCi)('qemu driver: prerequisites', () => {
  it('qemu driver: QEMU, the kernel and the image tools are installed', () => {
    throw new Error(VM_MISSING(missing));
  });
});

if (missing.length > 0 && !inCi)
  console.warn(`Skipping the QEMU driver test: ${VM_MISSING(missing)}`);

async function until<T>(what: string, ms: number, fn: () => Promise<T | undefined | null | false>) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

describe.skipIf(missing.length > 0)('compute on the QEMU driver (real virtual machines)', () => {
  let dir: string;
  let key: string;
  let server: Proc;
  let dropDb: () => Promise<void> = async () => {};
  const ids: { a?: number; b?: number; volume?: number } = {};

  const api = async (method: string, url: string, body?: unknown, token = ADMIN) => {
    const res = await fetch(`${server.base}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let json: any;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: res.status, body: json };
  };
  const status = async (id: number) =>
    (await api('GET', `/v4/compute/instances/${id}`)).body?.status;
  const machine = async (id: number) =>
    (await api('GET', '/_stratus/machines', undefined, OPERATOR)).body.data.find(
      (m: { compute_id: number }) => m.compute_id === id,
    );
  const sshPort = async (id: number): Promise<number> => (await machine(id)).ssh.port;
  const ssh = async (id: number, cmd: string, timeoutS = 20) =>
    sshRun(await sshPort(id), key, cmd, timeoutS);
  const reach = async (id: number, status: string) =>
    until(
      `instance ${id} ${status}`,
      BOOT_MS,
      async () => (await api('GET', `/v4/compute/instances/${id}`)).body.status === status,
    );
  const sshUp = async (id: number) =>
    // Short tries: while the guest boots, a forwarded connection can hang until its timeout.
    until(`ssh to instance ${id}`, BOOT_MS, async () => (await ssh(id, 'hostname', 8))?.trim());
  const events = async (id: number) =>
    (await api('GET', '/v4/account/events?page_size=100')).body.data.filter(
      (e: { entity: { type: string; id: number } | null }) =>
        e.entity?.type === 'compute' && e.entity.id === id,
    );
  /** The guest's block device on a SCSI target (`/dev/sdX` names follow discovery order). */
  const deviceOn = (id: number, target: number) =>
    ssh(
      id,
      `for b in /sys/block/sd*; do t=$(basename $(readlink $b/device) | cut -d: -f3); [ "$t" = ${target} ] && echo \${b##*/}; done; true`,
    );
  const volumeDevice = (id: number) =>
    ssh(
      id,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
      'for b in /sys/block/sd*; do grep -q Volume $b/device/model 2>/dev/null && echo ${b##*/}; done; true',
    );

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'stratus-vm-'));
    execFileSync(
      'bash',
      [path.join(ROOT, 'scripts/build-test-image.sh'), path.join(dir, 'images')],
      {
        stdio: 'ignore',
      },
    );
    key = path.join(dir, 'id_ed25519');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key, '-C', 'vm-e2e']);
    let databaseUrl = `sqlite:${path.join(dir, 'stratus.db')}`;
    if (DIALECT === 'postgres') {
      const admin = inject('pgAdminUrl');
      const name = `vm_${Date.now().toString(36)}`;
      databaseUrl = await createDatabase(admin, name);
      dropDb = () => dropDatabase(admin, name);
    }
    const base = 30000 + Math.floor(Math.random() * 300) * 100;
    server = await start(
      ['serve'],
      {
        STRATUS_FROM_SOURCE: '1',
        DATABASE_URL: databaseUrl,
        STRATUS_DATA_DIR: path.join(dir, 'data'),
        STRATUS_TIMING: 'instant',
        STRATUS_ADMIN_TOKEN: ADMIN,
        STRATUS_OPERATOR_TOKEN: OPERATOR,
        STRATUS_RATE_LIMITS: 'off',
        STRATUS_COMPUTE_DRIVER: 'qemu',
        STRATUS_VM_IMAGES: path.join(dir, 'images'),
        STRATUS_VM_MEMORY_SCALE: '0.125',
        STRATUS_VM_SSH_PORTS: `${base}-${base + 99}`,
        STRATUS_VM_SHUTDOWN_GRACE: '60',
        STRATUS_VM_WATCH_MS: '1000',
      },
      SERVER_READY,
      180_000,
    );
  }, STEP_TIMEOUT);

  afterAll(async () => {
    // Whatever happened, no machine of the test stays up.
    for (const id of [ids.a, ids.b])
      if (id !== undefined)
        await api('DELETE', `/v4/compute/instances/${id}`).catch(() => undefined);
    await until(
      'instances deleted',
      120_000,
      async () =>
        (await api('GET', '/v4/compute/instances').catch(() => ({ body: { data: [] } }))).body.data
          .length === 0,
    ).catch(() => undefined);
    await server?.stop();
    for (const pidFile of findFiles(path.join(dir, 'data'), 'qemu.pid')) {
      try {
        process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
      } catch {
        // gone
      }
    }
    await dropDb();
    rmSync(dir, { recursive: true, force: true });
  }, STEP_TIMEOUT);

  it(
    'createInstance: the test image boots with the SSH key and the instance reaches running',
    async () => {
      const created = await api('POST', '/v4/compute/instances', {
        region: 'us-east',
        type: 'g6-nanode-1',
        image: 'compute/alpine3.20',
        label: 'vm-e2e-one',
        root_pass: 'Correct-Horse-Battery-9',
        authorized_keys: [readFileSync(`${key}.pub`, 'utf8').trim()],
        swap_size: 1024,
      });
      expect(created.status).toBe(200);
      ids.a = created.body.id as number;
      await reach(ids.a, 'running');
      const m = await machine(ids.a);
      expect(m).toMatchObject({ state: 'running', vcpus: 1, memory_mb: 128 });
      expect(m.ssh.port).toBeGreaterThan(0);
      expect(['kvm', 'tcg']).toContain(m.accel);
    },
    STEP_TIMEOUT,
  );

  it(
    'ssh: answers with the key, and the guest has the instance label as its hostname',
    async () => {
      const id = ids.a as number;
      expect(await sshUp(id)).toBe('vm-e2e-one');
    },
    STEP_TIMEOUT,
  );

  it(
    'shutdownInstance: the guest powers off and the instance is offline with its event',
    async () => {
      const id = ids.a as number;
      expect((await api('POST', `/v4/compute/instances/${id}/shutdown`)).status).toBe(200);
      await reach(id, 'offline');
      expect((await machine(id)).state).toBe('stopped');
      // The guest's own ACPI handler powered it off; a machine forced off after the grace period
      // never prints the kernel's power-down line.
      const log = await api('GET', `/_stratus/machines/${id}/console`, undefined, OPERATOR);
      expect(log.body).toContain('reboot: Power down');
      const ev = (await events(id)).find(
        (e: { action: string }) => e.action === 'compute_shutdown',
      );
      expect(ev.status).toBe('finished');
    },
    STEP_TIMEOUT,
  );

  it(
    'resizeDisk: the disk grows, and after a boot the guest sees the bigger disk',
    async () => {
      const id = ids.a as number;
      const disks = (await api('GET', `/v4/compute/instances/${id}/disks`)).body.data;
      const boot = disks.find((d: { filesystem: string }) => d.filesystem === 'ext4');
      const swap = disks.find((d: { filesystem: string }) => d.filesystem === 'swap');
      // The plan's storage is full: the swap disk goes, and the boot disk takes its room.
      expect((await api('DELETE', `/v4/compute/instances/${id}/disks/${swap.id}`)).status).toBe(
        200,
      );
      await until(
        'swap deleted',
        BOOT_MS,
        async () =>
          (await api('GET', `/v4/compute/instances/${id}/disks/${swap.id}`)).status === 404,
      );
      const size = boot.size + swap.size;
      expect(
        (await api('POST', `/v4/compute/instances/${id}/disks/${boot.id}/resize`, { size })).status,
      ).toBe(200);
      await until('disk resized', BOOT_MS, async () => {
        const d = (await api('GET', `/v4/compute/instances/${id}/disks/${boot.id}`)).body;
        return d.status === 'ready' && d.size === size;
      });
      expect((await api('POST', `/v4/compute/instances/${id}/boot`)).status).toBe(200);
      await reach(id, 'running');
      await sshUp(id);
      const dev = (await deviceOn(id, 0))?.trim();
      const sectors = Number((await ssh(id, `cat /sys/block/${dev}/size`))?.trim());
      expect(sectors * 512).toBe(size * 1048576);
      // The filesystem grew with it (df in 1K blocks: more than the old disk could hold).
      const df = (await ssh(id, 'df -k / | tail -n 1'))?.trim().split(/\s+/) ?? [];
      expect(Number(df[1]) * 1024).toBeGreaterThan(boot.size * 1048576);
    },
    STEP_TIMEOUT,
  );

  it(
    'attachVolume: a volume is hot-plugged, written, detached, attached to a second instance and read',
    async () => {
      const a = ids.a as number;
      const vol = await api('POST', '/v4/volumes', {
        label: 'e2e-data',
        region: 'us-east',
        size: 10,
      });
      expect(vol.status).toBe(200);
      ids.volume = vol.body.id as number;
      await until(
        'volume active',
        BOOT_MS,
        async () => (await api('GET', `/v4/volumes/${ids.volume}`)).body.status === 'active',
      );
      expect(
        (await api('POST', `/v4/volumes/${ids.volume}/attach`, { compute_id: a })).status,
      ).toBe(200);
      const dev = await until('the volume in the guest', BOOT_MS, async () =>
        (await volumeDevice(a))?.trim(),
      );
      expect(
        await ssh(
          a,
          `mke2fs -q /dev/${dev} && mount /dev/${dev} /mnt && echo written-by-one > /mnt/note && umount /mnt && echo ok`,
        ),
      ).toContain('ok');
      expect((await api('POST', `/v4/volumes/${ids.volume}/detach`)).status).toBe(200);
      await until(
        'the volume gone from the guest',
        BOOT_MS,
        async () => (await volumeDevice(a))?.trim() === '',
      );
      // One machine at a time: the first goes off before the second boots.
      expect((await api('POST', `/v4/compute/instances/${a}/shutdown`)).status).toBe(200);
      await reach(a, 'offline');
      const b = await api('POST', '/v4/compute/instances', {
        region: 'us-east',
        type: 'g6-nanode-1',
        image: 'compute/alpine3.20',
        label: 'vm-e2e-two',
        root_pass: 'Correct-Horse-Battery-9',
        authorized_keys: [readFileSync(`${key}.pub`, 'utf8').trim()],
      });
      expect(b.status).toBe(200);
      ids.b = b.body.id as number;
      await reach(ids.b, 'running');
      expect(await sshUp(ids.b)).toBe('vm-e2e-two');
      expect(
        (await api('POST', `/v4/volumes/${ids.volume}/attach`, { compute_id: ids.b })).status,
      ).toBe(200);
      const dev2 = await until('the volume in the second guest', BOOT_MS, async () =>
        (await volumeDevice(ids.b as number))?.trim(),
      );
      expect(
        (await ssh(ids.b, `mount /dev/${dev2} /mnt && cat /mnt/note; umount /mnt`))?.trim(),
      ).toBe('written-by-one');
    },
    STEP_TIMEOUT,
  );

  it(
    'reboot: a reboot from inside the guest brings it back, and the instance stays running',
    async () => {
      const id = ids.b as number;
      const before = (await ssh(id, 'cat /proc/sys/kernel/random/boot_id'))?.trim();
      expect(before).toMatch(/[0-9a-f-]{36}/);
      // Detached from the session (stdin too), so the command answers before the guest goes down.
      await ssh(id, '(sleep 1; reboot) </dev/null >/dev/null 2>&1 &');
      const after = await until('the guest back', BOOT_MS, async () => {
        const v = (await ssh(id, 'cat /proc/sys/kernel/random/boot_id', 8))?.trim();
        return v && v !== before ? v : undefined;
      });
      expect(after).not.toBe(before);
      expect(await status(id)).toBe('running');
      expect((await events(id)).some((e: { action: string }) => e.action === 'lassie_reboot')).toBe(
        false,
      );
    },
    STEP_TIMEOUT,
  );

  it(
    'deleteInstance: no process and no file of the instance is left',
    async () => {
      for (const id of [ids.a as number, ids.b as number]) {
        const pidFile = findFiles(path.join(dir, 'data'), 'qemu.pid').find((f) =>
          f.includes(`/${id}/`),
        );
        const pid = pidFile ? Number(readFileSync(pidFile, 'utf8')) : null;
        expect((await api('DELETE', `/v4/compute/instances/${id}`)).status).toBe(200);
        await until(
          `instance ${id} deleted`,
          BOOT_MS,
          async () => (await api('GET', `/v4/compute/instances/${id}`)).status === 404,
        );
        if (pid !== null) expect(alive(pid)).toBe(false);
        expect(
          existsSync(path.join(dir, 'data/machines/regions/us-east/instances', String(id))),
        ).toBe(false);
        expect(existsSync(path.join(dir, 'data/machines/run', String(id)))).toBe(false);
      }
      expect((await api('GET', '/_stratus/machines', undefined, OPERATOR)).body.data).toEqual([]);
      // The volume outlives the instances, detached; its file is still there.
      expect((await api('GET', `/v4/volumes/${ids.volume}`)).body.compute_id).toBeNull();
      expect(
        existsSync(
          path.join(dir, `data/machines/regions/us-east/volumes/volume-${ids.volume}.qcow2`),
        ),
      ).toBe(true);
      ids.a = undefined;
      ids.b = undefined;
    },
    STEP_TIMEOUT,
  );
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').match(/^\d+ \(.*\) Z /);
  } catch {
    return false;
  }
}

function findFiles(root: string, name: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of existsSync(d) ? readdirSync(d, { withFileTypes: true }) : []) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === name) out.push(p);
    }
  };
  walk(root);
  return out;
}
