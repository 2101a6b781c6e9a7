import { describe, expect, it } from 'vitest';
import { nulPath } from './nul.js';

describe('nulPath', () => {
  it('nulPath: names the first NUL in a value, a key or an array element; nothing without one', () => {
    expect(nulPath(undefined)).toBeUndefined();
    expect(nulPath({})).toBeUndefined();
    expect(nulPath({ a: 'x', b: [1, 'y', { c: null }], d: true })).toBeUndefined();
    expect(nulPath('a\u0000b')).toBe('');
    expect(nulPath({ a: 'ok', b: { c: 'x\u0000' } })).toBe('b.c');
    expect(nulPath({ list: ['ok', 'ba\u0000d'] })).toBe('list.1');
    expect(nulPath({ ['k\u0000']: 1 })).toBe('k\u0000');
    expect(nulPath([{ a: ['x', { b: '\u0000' }] }])).toBe('0.a.1.b');
  });
});
