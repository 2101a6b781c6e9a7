import { describe, expect, it } from 'vitest';
import {
  canonicalIpv6,
  formatIpv6,
  ipv4ToNum,
  isIpv4,
  isIpv6,
  parseCidr4,
  parseIpv6,
  parseIpv6Net64,
} from './ip.js';

describe('ip helpers', () => {
  it('ipv4ToNum: dotted quads only, no leading zeros, no octet over 255', () => {
    expect(ipv4ToNum('198.18.0.2')).toBe(198 * 2 ** 24 + 18 * 2 ** 16 + 2);
    expect(ipv4ToNum('255.255.255.255')).toBe(2 ** 32 - 1);
    expect(isIpv4('198.018.0.2')).toBe(false);
    expect(isIpv4('256.0.0.1')).toBe(false);
    expect(isIpv4('1.2.3')).toBe(false);
  });

  it('parseCidr4: needs a prefix length and host bits zero', () => {
    expect(parseCidr4('198.18.0.0/20')).toEqual({
      base: ipv4ToNum('198.18.0.0'),
      prefix: 20,
      size: 4096,
    });
    expect(parseCidr4('0.0.0.0/')).toBeUndefined();
    expect(parseCidr4('198.18.0.0/ 20')).toBeUndefined();
    expect(parseCidr4('198.18.0.1/24')).toBeUndefined();
    expect(parseCidr4('198.18.0.0/33')).toBeUndefined();
    expect(parseCidr4('198.18.0.0')).toBeUndefined();
  });

  it('parseIpv6: expands ::, accepts an embedded IPv4 tail, refuses malformed text', () => {
    expect(parseIpv6('2001:db8::1')).toEqual([0x2001, 0xdb8, 0, 0, 0, 0, 0, 1]);
    expect(parseIpv6('::ffff:192.0.2.1')).toEqual([0, 0, 0, 0, 0, 0xffff, 0xc000, 0x201]);
    expect(parseIpv6('::')).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    for (const bad of [
      '1:2:3',
      '1::2::3',
      '12345::1',
      '1:2:3:4:5:6:7:8:9',
      'fe80::g',
      ':::',
      '1:2:3:4:5:6:7::8',
    ]) {
      expect(isIpv6(bad), bad).toBe(false);
    }
  });

  it('formatIpv6: RFC 5952 text (lower case, longest zero run compressed, single zeros kept)', () => {
    expect(formatIpv6([0x2001, 0xdb8, 0, 1, 0xf03c, 0x91ff, 0xfe00, 1])).toBe(
      '2001:db8:0:1:f03c:91ff:fe00:1',
    );
    expect(formatIpv6([0x2001, 0xdb8, 0, 0, 1, 0, 0, 0])).toBe('2001:db8:0:0:1::');
    expect(formatIpv6([0xfe80, 0, 0, 0, 0xf03c, 0x91ff, 0xfe00, 0])).toBe('fe80::f03c:91ff:fe00:0');
    expect(canonicalIpv6('2001:0DB8:0000:0000:0000:0000:0000:0001')).toBe('2001:db8::1');
  });

  it('parseIpv6Net64: a /64 network with zero interface bits', () => {
    expect(parseIpv6Net64('2001:db8::/64')).toEqual([0x2001, 0xdb8, 0, 0]);
    expect(parseIpv6Net64('2001:db8:0:1::/64')).toEqual([0x2001, 0xdb8, 0, 1]);
    expect(parseIpv6Net64('2001:db8::1/64')).toBeUndefined();
    expect(parseIpv6Net64('2001:db8::/48')).toBeUndefined();
    expect(parseIpv6Net64('::::::/64')).toBeUndefined();
  });
});
