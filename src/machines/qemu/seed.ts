import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import type { MachineNetwork, MachineSeed } from '../driver.js';
import { makeSparse, run } from './tools.js';

/** The files of a NoCloud seed (cloud-init's `nocloud` datasource), by name. */
export function seedFiles(
  seed: MachineSeed,
  network: MachineNetwork,
  mac: string,
  mode: 'user' | 'bridge',
): Record<string, string> {
  const root: Record<string, unknown> = { name: 'root', lock_passwd: seed.rootPassHash === null };
  if (seed.rootPassHash !== null) root.hashed_passwd = seed.rootPassHash;
  if (seed.authorizedKeys.length > 0) root.ssh_authorized_keys = seed.authorizedKeys;
  // The deployment's credentials as vendor data: the user's own user data is applied over it.
  const vendor = {
    disable_root: false,
    ssh_pwauth: seed.rootPassHash !== null,
    chpasswd: { expire: false },
    users: [root],
  };
  const eth0: Record<string, unknown> = { match: { macaddress: mac }, 'set-name': 'eth0' };
  if (mode === 'user' || network.ipv4.length === 0) eth0.dhcp4 = true;
  else {
    eth0.addresses = network.ipv4.map((a) => `${a.address}/${a.prefix}`);
    const gw = network.ipv4.find((a) => a.gateway !== null)?.gateway;
    if (gw) eth0.routes = [{ to: '0.0.0.0/0', via: gw }];
    eth0.nameservers = { addresses: gw ? [gw] : [] };
  }
  return {
    'meta-data': stringify(
      { 'instance-id': seed.instanceId, 'local-hostname': seed.hostname },
      { lineWidth: 0 },
    ),
    'vendor-data': `#cloud-config\n${stringify(vendor, { lineWidth: 0 })}`,
    // cloud-init wants a user-data file; an empty cloud-config when the instance has none.
    'user-data': seed.userData ?? '#cloud-config\n{}\n',
    'network-config': stringify({ version: 2, ethernets: { eth0 } }, { lineWidth: 0 }),
  };
}

/**
 * Writes the seed as a small FAT image labelled CIDATA (mkfs.vfat and mcopy: dosfstools and
 * mtools, no root needed), which the guest sees as a read-only disk.
 */
export async function writeSeedImage(file: string, files: Record<string, string>): Promise<void> {
  const dir = await mkdtemp(path.join(path.dirname(file), '.seed-'));
  try {
    const names: string[] = [];
    for (const [name, body] of Object.entries(files)) {
      await writeFile(path.join(dir, name), body, { mode: 0o600 });
      names.push(path.join(dir, name));
    }
    const part = `${file}.part`;
    await makeSparse(part, 2);
    await run('mkfs.vfat', ['-n', 'CIDATA', part]);
    await run('mcopy', ['-i', part, ...names, '::']);
    await rename(part, file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
