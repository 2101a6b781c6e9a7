import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import type { FieldErrors } from '../../errors/errors.js';
import { sshKeysOfUsers, validatePublicKey } from '../profile/ssh-keys.js';
import { checkPassword } from './compute.rules.js';

/** `authorized_keys`: each entry a valid public key. */
function checkAuthorizedKeys(
  fe: FieldErrors,
  field: string,
  keys: readonly string[] | undefined,
): void {
  keys?.forEach((k, i) => {
    const problem = validatePublicKey(k);
    if (problem) fe.add(`${field}.${i}`, problem);
  });
}

/** `authorized_users`: users of the account with SSH keys; returns the keys to install. */
async function keysOfAuthorizedUsers(
  db: Database,
  fe: FieldErrors,
  field: string,
  accountId: number,
  usernames: readonly string[],
): Promise<string[]> {
  const { keys, problems } = await sshKeysOfUsers(db, accountId, usernames, field);
  for (const e of problems) fe.add(e.field, e.reason);
  return keys;
}

/**
 * The credentials of an image deployment (instance create, disk create): `root_pass` is required
 * with an image and strength-checked, `authorized_keys` and `authorized_users` are checked and
 * need an image. Returns the public keys to install.
 */
export async function checkDeployCredentials(
  db: Database,
  fe: FieldErrors,
  p: Principal,
  d: {
    imageId: string | null;
    imageFound: boolean;
    root_pass?: string;
    authorized_keys?: string[];
    authorized_users?: string[];
  },
): Promise<string[]> {
  if (d.imageFound) {
    if (d.root_pass === undefined)
      fe.add('root_pass', 'root_pass is required when deploying from an image');
  } else if (d.root_pass !== undefined && d.imageId === null) {
    fe.add('root_pass', 'root_pass is only used when deploying from an image');
  }
  checkPassword(fe, 'root_pass', d.root_pass, [p.username]);
  checkAuthorizedKeys(fe, 'authorized_keys', d.authorized_keys);
  const keys = [...(d.authorized_keys ?? [])];
  if (d.authorized_users !== undefined && d.authorized_users.length > 0) {
    keys.push(
      ...(await keysOfAuthorizedUsers(db, fe, 'authorized_users', p.accountId, d.authorized_users)),
    );
  }
  if ((d.authorized_keys?.length || d.authorized_users?.length) && d.imageId === null) {
    fe.add('authorized_keys', 'authorized_keys and authorized_users need an image');
  }
  return keys;
}
