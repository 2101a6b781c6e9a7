import type { Database } from '../../db/database.js';
import type { FieldErrors } from '../../errors/errors.js';
import { sshKeysOfUsers, validatePublicKey } from '../profile/ssh-keys.js';

/** `authorized_keys`: each entry a valid public key. */
export function checkAuthorizedKeys(
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
export async function keysOfAuthorizedUsers(
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
