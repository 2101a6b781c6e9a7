import { generateKeyPairSync } from 'node:crypto';
import { afterEach, beforeEach } from 'vitest';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { buildTestApp, type TestApp, type TestAppOptions } from '../../helpers/build-test-app.js';

/** An SSH wire-format string: uint32 length, then the bytes. */
function wire(...parts: (string | Buffer)[]): Buffer {
  return Buffer.concat(
    parts.map((p) => {
      const b = typeof p === 'string' ? Buffer.from(p, 'latin1') : p;
      const len = Buffer.alloc(4);
      len.writeUInt32BE(b.length);
      return Buffer.concat([len, b]);
    }),
  );
}

/** An mpint: big-endian, with a leading zero byte when the high bit is set. */
const mpint = (b: Buffer) => ((b[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), b]) : b);
const b64url = (s: string | undefined) => Buffer.from(s ?? '', 'base64url');

/** Real public keys of each accepted type, in OpenSSH `authorized_keys` form. */
export function sshKey(
  type: 'ed25519' | 'rsa' | 'ecdsa256' | 'ecdsa384' | 'sk-ed25519' | 'sk-ecdsa',
  comment = 'me@laptop',
): string {
  const line = (t: string, blob: Buffer) => `${t} ${blob.toString('base64')} ${comment}`.trim();
  if (type === 'ed25519' || type === 'sk-ed25519') {
    const jwk = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
    if (type === 'ed25519') return line('ssh-ed25519', wire('ssh-ed25519', b64url(jwk.x)));
    const t = 'sk-ssh-ed25519@openssh.com';
    return line(t, wire(t, b64url(jwk.x), 'ssh:'));
  }
  if (type === 'rsa') {
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const jwk = publicKey.export({ format: 'jwk' });
    return line('ssh-rsa', wire('ssh-rsa', mpint(b64url(jwk.e)), mpint(b64url(jwk.n))));
  }
  const curve = type === 'ecdsa384' ? 'nistp384' : 'nistp256';
  const named = curve === 'nistp384' ? 'P-384' : 'P-256';
  const jwk = generateKeyPairSync('ec', { namedCurve: named }).publicKey.export({ format: 'jwk' });
  const q = Buffer.concat([Buffer.from([4]), b64url(jwk.x), b64url(jwk.y)]);
  if (type === 'sk-ecdsa') {
    const t = 'sk-ecdsa-sha2-nistp256@openssh.com';
    return line(t, wire(t, 'nistp256', q, 'ssh:'));
  }
  const t = `ecdsa-sha2-${curve}`;
  return line(t, wire(t, curve, q));
}

/** A key whose base64 decodes to another type than the one it claims. */
export function mismatchedKey(): string {
  const [, b64] = sshKey('ed25519').split(' ');
  return `ssh-rsa ${b64}`;
}

/** A fresh test app per test, closed afterwards. */
export function useTestApp(opts: TestAppOptions = {}): () => TestApp {
  let t: TestApp | undefined;
  beforeEach(async () => {
    t = await buildTestApp(opts);
  });
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });
  return () => {
    if (!t) throw new Error('no test app');
    return t;
  };
}

/** A second account with its own unrestricted user and `*` token. */
export async function secondAccount(t: TestApp, username = 'other-owner') {
  return bootstrapAccount(t.ctx.db, t.clock, { email: `${username}@example.org`, username });
}
