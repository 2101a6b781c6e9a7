import type { Database } from '../../db/database.js';
import type { ErrorItem } from '../../errors/api-error.js';

/** Public key types Stratus accepts (reference SSHKey.ssh_key "Accepted formats"). */
export const SSH_KEY_TYPES = [
  'ssh-dss',
  'ssh-rsa',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'ssh-ed25519',
  'sk-ecdsa-sha2-nistp256@openssh.com',
  'sk-ssh-ed25519@openssh.com',
] as const;
export type SshKeyType = (typeof SSH_KEY_TYPES)[number];

/** Longest public key text accepted (a 16384-bit RSA key is about 2,800 characters). */
export const SSH_KEY_MAX_LENGTH = 16_384;

const TYPE_SET = new Set<string>(SSH_KEY_TYPES);
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** Uncompressed (0x04) or compressed (0x02/0x03) EC point sizes per curve. */
const EC_POINT = { nistp256: [65, 33], nistp384: [97, 49], nistp521: [133, 67] } as const;

export interface ParsedPublicKey {
  type: SshKeyType;
  base64: string;
  comment: string;
}

/** Reads the SSH wire format (RFC 4251): uint32 length-prefixed strings. */
class WireReader {
  private pos = 0;
  constructor(private readonly buf: Buffer) {}
  string(): Buffer | undefined {
    if (this.pos + 4 > this.buf.length) return undefined;
    const len = this.buf.readUInt32BE(this.pos);
    const start = this.pos + 4;
    if (start + len > this.buf.length) return undefined;
    this.pos = start + len;
    return this.buf.subarray(start, start + len);
  }
  get done(): boolean {
    return this.pos === this.buf.length;
  }
}

/** Whether the blob after the type string has the fields the key type defines, and no more. */
function bodyValid(type: SshKeyType, r: WireReader): boolean {
  const strings = (n: number) => {
    const out: Buffer[] = [];
    for (let i = 0; i < n; i++) {
      const s = r.string();
      if (!s || s.length === 0) return undefined;
      out.push(s);
    }
    return out;
  };
  const ecPoint = (curve: keyof typeof EC_POINT) => {
    const [name, q] = strings(2) ?? [];
    if (!name || !q || name.toString('latin1') !== curve) return false;
    const [full, compressed] = EC_POINT[curve];
    return (
      (q.length === full && q[0] === 4) || (q.length === compressed && (q[0] === 2 || q[0] === 3))
    );
  };
  let ok: boolean;
  switch (type) {
    case 'ssh-rsa':
      ok = strings(2) !== undefined; // e, n
      break;
    case 'ssh-dss':
      ok = strings(4) !== undefined; // p, q, g, y
      break;
    case 'ecdsa-sha2-nistp256':
      ok = ecPoint('nistp256');
      break;
    case 'ecdsa-sha2-nistp384':
      ok = ecPoint('nistp384');
      break;
    case 'ecdsa-sha2-nistp521':
      ok = ecPoint('nistp521');
      break;
    case 'ssh-ed25519':
      ok = r.string()?.length === 32;
      break;
    case 'sk-ecdsa-sha2-nistp256@openssh.com':
      ok = ecPoint('nistp256') && strings(1) !== undefined; // + application
      break;
    case 'sk-ssh-ed25519@openssh.com':
      ok = r.string()?.length === 32 && strings(1) !== undefined; // + application
      break;
  }
  return ok && r.done;
}

/**
 * Parses a public key line `<type> <base64> [comment]`: the type must be one Stratus accepts,
 * the base64 must decode to an SSH wire-format key whose embedded type string is the same type,
 * with the fields of that type. Returns the key, or a reason for the client.
 */
export function parsePublicKey(text: string): ParsedPublicKey | { problem: string } {
  const line = text.trim();
  if (line.length > SSH_KEY_MAX_LENGTH)
    return { problem: `SSH key must be at most ${SSH_KEY_MAX_LENGTH} characters` };
  if (/[\r\n]/.test(line)) return { problem: 'SSH key must be a single line' };
  const m = /^(\S+)\s+(\S+)(?:\s+(.*))?$/.exec(line);
  if (!m?.[1] || !m[2]) return { problem: 'SSH key must have the form "<type> <key> [comment]"' };
  const [, type, b64, comment = ''] = m;
  if (!TYPE_SET.has(type)) {
    return { problem: `SSH key type must be one of ${SSH_KEY_TYPES.join(', ')}` };
  }
  if (b64.length % 4 !== 0 || !BASE64.test(b64)) return { problem: 'SSH key is not valid base64' };
  const r = new WireReader(Buffer.from(b64, 'base64'));
  const embedded = r.string()?.toString('latin1');
  if (embedded !== type) return { problem: 'SSH key data does not match its type' };
  if (!bodyValid(type as SshKeyType, r)) return { problem: 'SSH key data is not a valid key' };
  return { type: type as SshKeyType, base64: b64, comment: comment.trim() };
}

/** The reason a public key is refused, or undefined when it is valid (for `authorized_keys`). */
export function validatePublicKey(text: string): string | undefined {
  const parsed = parsePublicKey(text);
  return 'problem' in parsed ? parsed.problem : undefined;
}

/** The canonical text of a valid key: single spaces, trimmed comment. */
export function formatPublicKey(k: ParsedPublicKey): string {
  return k.comment === '' ? `${k.type} ${k.base64}` : `${k.type} ${k.base64} ${k.comment}`;
}

/**
 * The SSH keys of the named users of one account, for `authorized_users` (compute create,
 * rebuild, disk create). Names that are not users of this account come back as problems to add
 * to the caller's FieldErrors (`for (const e of problems) fe.add(e.field, e.reason)`).
 */
export async function sshKeysOfUsers(
  db: Database,
  accountId: number,
  usernames: readonly string[],
  field = 'authorized_users',
): Promise<{ keys: string[]; problems: ErrorItem[] }> {
  const wanted = [...new Set(usernames)];
  if (wanted.length === 0) return { keys: [], problems: [] };
  const users = await db.db
    .selectFrom('users')
    .select(['id', 'username'])
    .where('account_id', '=', accountId)
    .where('username', 'in', wanted)
    .execute();
  const found = new Set(users.map((u) => u.username));
  const problems: ErrorItem[] = [];
  usernames.forEach((u, i) => {
    if (!found.has(u)) problems.push({ field: `${field}.${i}`, reason: `User ${u} not found` });
  });
  if (users.length === 0) return { keys: [], problems };
  const rows = await db.db
    .selectFrom('ssh_keys')
    .select(['user_id', 'ssh_key'])
    .where(
      'user_id',
      'in',
      users.map((u) => u.id),
    )
    .orderBy('user_id')
    .orderBy('id')
    .execute();
  // `authorized_users` names users who already have an SSH key on their profile (spec).
  const withKeys = new Set(rows.map((r) => r.user_id));
  usernames.forEach((u, i) => {
    const user = users.find((x) => x.username === u);
    if (user && !withKeys.has(user.id))
      problems.push({ field: `${field}.${i}`, reason: `User ${u} has no SSH keys` });
  });
  return { keys: rows.map((r) => r.ssh_key), problems };
}
