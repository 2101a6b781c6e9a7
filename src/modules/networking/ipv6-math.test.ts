import { describe, expect, it } from 'vitest';
import { firstFree, fromBig, parseNet6Aligned, rangeSpaceOf } from './ipv6-math.js';
import { poolProblems } from './ip-allocator.js';

const net = (s: string) => parseNet6Aligned(s) as NonNullable<ReturnType<typeof parseNet6Aligned>>;

describe('IPv6 range math', () => {
  it('parseNet6Aligned: host bits must be zero; rangeSpaceOf: /56 or larger', () => {
    expect(parseNet6Aligned('2001:db8:100::/64')).toBeDefined();
    expect(parseNet6Aligned('2001:db8:100::1/64')).toBeUndefined();
    expect(parseNet6Aligned('2001:db8::/129')).toBeUndefined();
    expect(rangeSpaceOf('2001:db8:100::/40')).toBeDefined();
    expect(rangeSpaceOf('2001:db8:100::/64')).toBeUndefined();
  });

  it('firstFree: the lowest aligned block that overlaps no used range; none when the space is full', () => {
    const space = net('2001:db8:100::/40');
    const at = (bits: number, used: string[]) => {
      const b = firstFree(space, bits, used.map(net));
      return b ? `${fromBig(b.base)}/${b.bits}` : undefined;
    };
    expect(at(64, [])).toBe('2001:db8:100::/64');
    expect(at(64, ['2001:db8:100::/64'])).toBe('2001:db8:100:1::/64');
    expect(at(56, ['2001:db8:100::/64'])).toBe('2001:db8:100:100::/56');
    expect(at(64, ['2001:db8:100::/56'])).toBe('2001:db8:100:100::/64');
    expect(at(64, ['2001:db8:100:1::/64', '2001:db8:100::/64'])).toBe('2001:db8:100:2::/64');
    expect(firstFree(net('2001:db8:100::/56'), 56, [net('2001:db8:100::/64')])).toBeUndefined();
  });

  it('poolProblems: ipv6_ranges, when given, must be an aligned network of /56 or larger', () => {
    const region = (ipv6_ranges: unknown) => ({
      'us-east': {
        public: ['198.18.0.0/24'],
        private: '192.168.128.0/17',
        ipv6: '2001:db8:0:1::/64',
        ipv6_ranges,
      },
    });
    expect(poolProblems(region('2001:db8:100::/40'))).toEqual([]);
    for (const bad of ['2001:db8:100::/64', '2001:db8:100::1/40', 42])
      expect(poolProblems(region(bad)), String(bad)).toEqual([
        'us-east: ipv6_ranges must be an IPv6 network of /56 or larger',
      ]);
  });
});
