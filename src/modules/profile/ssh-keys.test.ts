import { describe, expect, it } from 'vitest';
import { formatPublicKey, parsePublicKey, validatePublicKey } from './ssh-keys.js';

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
const key = (type: string, blob: Buffer, comment = '') =>
  `${type} ${blob.toString('base64')}${comment ? ` ${comment}` : ''}`;
const ed = Buffer.alloc(32, 7);
const point = (len: number, first = 4) =>
  Buffer.concat([Buffer.from([first]), Buffer.alloc(len - 1, 1)]);

describe('parsePublicKey', () => {
  it('parsePublicKey: accepts each type with the fields it defines', () => {
    const good = [
      key('ssh-ed25519', wire('ssh-ed25519', ed)),
      key('ssh-rsa', wire('ssh-rsa', Buffer.from([1, 0, 1]), Buffer.alloc(256, 0x7f))),
      key(
        'ssh-dss',
        wire('ssh-dss', Buffer.from([1]), Buffer.from([2]), Buffer.from([3]), Buffer.from([4])),
      ),
      key('ecdsa-sha2-nistp256', wire('ecdsa-sha2-nistp256', 'nistp256', point(65))),
      key('ecdsa-sha2-nistp384', wire('ecdsa-sha2-nistp384', 'nistp384', point(97))),
      key('ecdsa-sha2-nistp521', wire('ecdsa-sha2-nistp521', 'nistp521', point(133))),
      key('ecdsa-sha2-nistp256', wire('ecdsa-sha2-nistp256', 'nistp256', point(33, 2))),
      key('sk-ssh-ed25519@openssh.com', wire('sk-ssh-ed25519@openssh.com', ed, 'ssh:')),
      key(
        'sk-ecdsa-sha2-nistp256@openssh.com',
        wire('sk-ecdsa-sha2-nistp256@openssh.com', 'nistp256', point(65), 'ssh:'),
      ),
    ];
    for (const k of good) expect(validatePublicKey(k), k.split(' ')[0]).toBeUndefined();
  });

  it('parsePublicKey: refuses wrong sizes, curves, missing fields and trailing bytes', () => {
    const bad = [
      key('ssh-ed25519', wire('ssh-ed25519', Buffer.alloc(31))),
      key('ssh-ed25519', Buffer.concat([wire('ssh-ed25519', ed), Buffer.from([0])])),
      key('ssh-rsa', wire('ssh-rsa', Buffer.from([1, 0, 1]))),
      key('ssh-dss', wire('ssh-dss', Buffer.from([1]), Buffer.from([2]))),
      key('ecdsa-sha2-nistp256', wire('ecdsa-sha2-nistp256', 'nistp384', point(65))),
      key('ecdsa-sha2-nistp256', wire('ecdsa-sha2-nistp256', 'nistp256', point(97))),
      key('ecdsa-sha2-nistp256', wire('ecdsa-sha2-nistp256', 'nistp256', point(65, 5))),
      key('sk-ssh-ed25519@openssh.com', wire('sk-ssh-ed25519@openssh.com', ed)),
      key('ssh-rsa', wire('ssh-ed25519', ed)),
      `ssh-ed25519 ${'A'.repeat(16_400)}`,
    ];
    for (const k of bad) expect(validatePublicKey(k), k.slice(0, 40)).toBeDefined();
  });

  it('formatPublicKey: single spaces and a trimmed comment', () => {
    const blob = wire('ssh-ed25519', ed).toString('base64');
    const parsed = parsePublicKey(`ssh-ed25519\t${blob}  user@host  `);
    expect('problem' in parsed).toBe(false);
    if (!('problem' in parsed))
      expect(formatPublicKey(parsed)).toBe(`ssh-ed25519 ${blob} user@host`);
  });
});
