import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** scrypt parameters: N = 2^15, r = 8, p = 1 (32 MiB, RFC 7914's interactive-login range). */
const N = 32768;
const R = 8;
const P = 1;
const KEY_LEN = 32;
const MAX_MEM = 64 * 1024 * 1024;

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_LEN, { N: n, r, p, maxmem: MAX_MEM }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

/** A memory-hard hash of a password: `scrypt$N$r$p$salt$key` (base64). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** Whether a password matches a stored hash (constant-time on the derived key). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [alg, n, r, p, salt, key] = stored.split('$');
  if (alg !== 'scrypt' || !n || !r || !p || !salt || !key) return false;
  const want = Buffer.from(key, 'base64');
  const got = await derive(password, Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p));
  return got.length === want.length && timingSafeEqual(got, want);
}

/** A password the operator may set: length bounds only (the sign-in page checks the rest). */
export function passwordProblem(password: string): string | undefined {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX)
    return `The password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`;
  return undefined;
}

/** A hash to verify against when the user is unknown, so both paths cost one scrypt. */
let dummy: Promise<string> | undefined;
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(16).toString('hex'));
  return dummy;
}
