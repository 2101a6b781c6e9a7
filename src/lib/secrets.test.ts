import { describe, expect, it } from 'vitest';
import { hashSecret, newSecret } from './secrets.js';

describe('secrets', () => {
  it('hashSecret: is the hex SHA-256 of the UTF-8 text, as stored by every earlier version', () => {
    expect(hashSecret('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(hashSecret('\u00e9')).toBe(
      '4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c',
    );
  });

  it('newSecret: 64 hex characters, different every time', () => {
    const a = newSecret();
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(newSecret()).not.toBe(a);
  });
});
