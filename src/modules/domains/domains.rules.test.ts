import { describe, expect, it } from 'vitest';
import { Zone } from './dns/answer.js';
import {
  domainProblem,
  ipIn,
  nextSerial,
  rnameEmail,
  roundSeconds,
  serialNewer,
  soaRname,
} from './domains.rules.js';
import { relativeName } from './records.rules.js';
import { masterZoneRecords, txtStrings } from './zone.js';

describe('domain rules', () => {
  it('roundSeconds: rounds up to the next valid value; 0 stays 0; beyond the last is the last', () => {
    expect([0, 1, 30, 31, 299, 300, 600, 3601, 86400, 2419200, 9999999].map(roundSeconds)).toEqual([
      0, 30, 30, 120, 300, 300, 3600, 7200, 86400, 2419200, 2419200,
    ]);
  });

  it('domainProblem: the reference pattern (labels, a top-level domain, 253 characters)', () => {
    for (const ok of [
      'example.com',
      'a-b_c.example.co.uk',
      'tf-test-1.example',
      'xn--bcher-kva.example',
      '2.0.192.in-addr.arpa',
    ])
      expect(domainProblem(ok), ok).toBeUndefined();
    for (const bad of [
      'com',
      'example',
      'exa mple.com',
      'example.c',
      `${'a'.repeat(64)}.com`,
      `${'a.'.repeat(127)}com`,
    ])
      expect(domainProblem(bad), bad).toBeDefined();
  });

  it('soaRname / rnameEmail: the mailbox form of the SOA and back, dots of the local part escaped', () => {
    expect(soaRname('dns.admin@example.com')).toBe('dns\\.admin.example.com');
    expect(rnameEmail('dns\\.admin.example.com.')).toBe('dns.admin@example.com');
    expect(rnameEmail('hostmaster.example.com')).toBe('hostmaster@example.com');
  });

  it('nextSerial / serialNewer: date-based serials move forward; RFC 1982 comparison wraps', () => {
    const day = Date.parse('2026-03-01T12:00:00Z');
    expect(nextSerial(0, day)).toBe(2026030100);
    expect(nextSerial(2026030100, day)).toBe(2026030101);
    expect(nextSerial(2026030199, day)).toBe(2026030200);
    expect(serialNewer(2, 1)).toBe(true);
    expect(serialNewer(1, 2)).toBe(false);
    expect(serialNewer(1, 4294967295)).toBe(true);
    expect(serialNewer(5, 5)).toBe(false);
  });

  it('ipIn: compares addresses in their normal form (IPv6 spellings, IPv4-mapped IPv6)', () => {
    expect(ipIn('::ffff:127.0.0.1', ['127.0.0.1'])).toBe(true);
    expect(ipIn('2001:db8:0::1', ['2001:DB8::1'])).toBe(true);
    expect(ipIn('127.0.0.2', ['127.0.0.1'])).toBe(false);
  });

  it('relativeName: a name given in full loses the zone; the zone is ""', () => {
    expect(relativeName('www.Example.com.', 'example.com')).toBe('www');
    expect(relativeName('EXAMPLE.com', 'example.com')).toBe('');
    expect(relativeName('www', 'example.com')).toBe('www');
    expect(relativeName('www.other.com', 'example.com')).toBe('www.other.com');
  });

  it('txtStrings: splits values over 255 bytes without cutting a UTF-8 character', () => {
    const v = `${'a'.repeat(254)}é${'b'.repeat(10)}`;
    const parts = txtStrings(v);
    expect(parts.join('')).toBe(v);
    expect(parts.every((p) => Buffer.byteLength(p) <= 255)).toBe(true);
    expect(parts[0]).toBe('a'.repeat(254));
  });

  it('Zone.answer: a CNAME loop ends; a CNAME out of the zone is answered alone', () => {
    const d = {
      domain: 'z.test',
      soa_email: 'a@z.test',
      refresh_sec: 0,
      retry_sec: 0,
      expire_sec: 0,
      ttl_sec: 0,
      serial: 1,
    };
    const rec = (type: 'CNAME' | 'A', name: string, target: string) => ({
      type,
      name,
      target,
      priority: 0,
      weight: 0,
      port: 0,
      tag: null,
      ttl_sec: 0,
    });
    const zone = new Zone(
      'z.test',
      masterZoneRecords(
        d,
        [
          rec('CNAME', 'a', 'b.z.test'),
          rec('CNAME', 'b', 'a.z.test'),
          rec('CNAME', 'out', 'www.other.test'),
        ],
        ['ns1.compute.com'],
      ),
    );
    const loop = zone.answer('a.z.test', 'A');
    expect(loop.answers.map((r) => r.name)).toEqual(['a.z.test', 'b.z.test']);
    const out = zone.answer('out.z.test', 'A');
    expect(out.answers.map((r) => [r.type, r.data])).toEqual([['CNAME', 'www.other.test']]);
    expect(out.rcode).toBe('NOERROR');
  });
});
