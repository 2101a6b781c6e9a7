import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../config/config.js';
import { defaultPools, IpAllocator, loadPools, poolProblems } from './ip-allocator.js';

const REGIONS = ['us-east', 'us-west', 'eu-west'];
const region = (over: Record<string, unknown> = {}) => ({
  public: ['198.18.0.0/24'],
  private: '192.168.128.0/17',
  ipv6: '2001:db8:0:1::/64',
  ...over,
});

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-pools-'));
const file = (name: string, text: string) => {
  const f = path.join(dir, name);
  fs.writeFileSync(f, text);
  return f;
};
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('IP pools', () => {
  it('poolProblems: the shipped pools are valid and use benchmarking and documentation ranges', () => {
    const pools = defaultPools();
    expect(poolProblems(pools)).toEqual([]);
    for (const p of Object.values(pools)) {
      for (const c of p.public) expect(c).toMatch(/^198\.1[89]\./);
      expect(p.private).toBe('192.168.128.0/17');
      expect(p.ipv6).toMatch(/^2001:db8:/);
    }
  });

  it('poolProblems: rejects a file that is not an object of region objects', () => {
    expect(poolProblems(null)).toEqual(['the file must hold a JSON object of regions']);
    expect(poolProblems([])).toEqual(['the file must hold a JSON object of regions']);
    expect(poolProblems({ 'us-east': 'x' })).toEqual([
      'us-east: must be an object with public, private and ipv6',
    ]);
  });

  it('poolProblems: rejects bad CIDRs, small public blocks and malformed /64s', () => {
    expect(poolProblems({ 'us-east': region({ public: [] }) })).toEqual([
      'us-east: public needs at least one CIDR',
    ]);
    expect(poolProblems({ 'us-east': region({ public: ['198.18.0.0/25'] }) })[0]).toMatch(
      /not an IPv4 CIDR of \/24 or larger/,
    );
    expect(poolProblems({ 'us-east': region({ public: ['198.18.0.1/24'] }) })[0]).toMatch(
      /not an IPv4 CIDR/,
    );
    expect(poolProblems({ 'us-east': region({ public: [42] }) })[0]).toMatch(
      /42 is not an IPv4 CIDR/,
    );
    expect(poolProblems({ 'us-east': region({ private: '192.168.128.0/31' }) })[0]).toMatch(
      /private must be/,
    );
    expect(poolProblems({ 'us-east': region({ ipv6: '2001:db8::1/64' }) })[0]).toMatch(
      /ipv6 must be a \/64/,
    );
    expect(poolProblems({ 'us-east': region({ ipv6: '::::/64' }) })[0]).toMatch(
      /ipv6 must be a \/64/,
    );
  });

  it('poolProblems: rejects overlapping public ranges, public inside a private range and shared /64s', () => {
    const overlap = poolProblems({
      'us-east': region({ public: ['198.18.0.0/20'] }),
      'us-west': region({ public: ['198.18.4.0/24'], ipv6: '2001:db8:0:2::/64' }),
    });
    expect(overlap).toEqual(['us-east: 198.18.0.0/20 overlaps 198.18.4.0/24 of us-west']);
    expect(poolProblems({ 'us-east': region({ public: ['192.168.200.0/24'] }) })).toEqual([
      'us-east: 192.168.200.0/24 overlaps the private range of us-east',
    ]);
    const sameNet = poolProblems({
      'us-east': region(),
      'us-west': region({ public: ['198.18.1.0/24'], ipv6: '2001:db8:0:1:0::/64' }),
    });
    expect(sameNet).toEqual(['us-west: ipv6 2001:db8:0:1:0::/64 is also the pool of us-east']);
  });

  it('loadPools: no file gives the defaults; a good file replaces them', () => {
    expect(loadPools(undefined, REGIONS)).toEqual(defaultPools());
    const good = { 'us-east': region() };
    expect(loadPools(file('good.json', JSON.stringify(good)), REGIONS)).toEqual(good);
  });

  it('loadPools: an unreadable, malformed or invalid file, or an unknown region, is a ConfigError naming STRATUS_IP_POOLS', () => {
    const cases = [
      path.join(dir, 'missing.json'),
      file('bad.json', '{not json'),
      file('invalid.json', JSON.stringify({ 'us-east': region({ public: ['10.0.0.0/33'] }) })),
      file('unknown.json', JSON.stringify({ 'mars-1': region() })),
    ];
    for (const f of cases) {
      let err: unknown;
      try {
        loadPools(f, REGIONS);
      } catch (e) {
        err = e;
      }
      expect(err, f).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).variable).toBe('STRATUS_IP_POOLS');
    }
    expect(() => loadPools(cases[3], REGIONS)).toThrow(/mars-1: not a region of the catalogue/);
  });
});

describe('IpAllocator: IPv6', () => {
  const alloc = new IpAllocator({ a: region({ ipv6: '2001:db8::/64' }), b: region() });

  it('slaac: the region /64 and the EUI-64, canonical even when the /64 is written with ::', () => {
    expect(alloc.slaac('a', 1)).toBe('2001:db8::f03c:91ff:fe00:1');
    expect(alloc.slaac('b', 0x123456)).toBe('2001:db8:0:1:f03c:91ff:fe12:3456');
    expect(alloc.linkLocal(7)).toBe('fe80::f03c:91ff:fe00:7');
  });

  it('instanceIdOf: recovers the instance from its SLAAC or link-local address, ids beyond 2^24 included', () => {
    for (const id of [1, 255, 65536, 2 ** 24 - 1, 2 ** 24, 2 ** 31 - 1]) {
      expect(alloc.instanceIdOf(alloc.linkLocal(id))).toBe(id);
      expect(alloc.instanceIdOf(alloc.slaac('b', id))).toBe(id);
    }
    expect(alloc.linkLocal(1)).not.toBe(alloc.linkLocal(2 ** 24 + 1));
    expect(alloc.instanceIdOf('2001:db8::1')).toBeUndefined();
  });
});
