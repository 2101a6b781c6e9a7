import { describe, expect, it } from 'vitest';
import { FieldErrors } from '../../errors/errors.js';
import {
  checkRules,
  evaluate,
  firewallLabelProblem,
  parsePorts,
  type RuleInput,
  type ExpandedRules,
} from './firewalls.rules.js';

const rule = (over: Partial<RuleInput> = {}): RuleInput => ({
  protocol: 'TCP',
  action: 'ACCEPT',
  addresses: { ipv4: ['0.0.0.0/0'] },
  ...over,
});
const problems = (input: { inbound?: RuleInput[]; outbound?: RuleInput[] }) => {
  const fe = new FieldErrors();
  checkRules(fe, 'rules', input);
  try {
    fe.throwIfAny();
    return [];
  } catch (e) {
    return (e as { errors: { field?: string }[] }).errors.map((x) => x.field);
  }
};

describe('firewall rules', () => {
  it('firewallLabelProblem: 3..32, alphanumeric ends, no doubled - _ or .', () => {
    for (const good of ['abc', 'fw-1.prod_x', 'A'.repeat(32), '1ab', 'a-b_c.d'])
      expect(firewallLabelProblem(good), good).toBeUndefined();
    for (const bad of ['ab', 'a'.repeat(33), '-abc', 'abc-', 'a--b', 'a__b', 'a..b', 'a b', 'ab!'])
      expect(firewallLabelProblem(bad), bad).toBeDefined();
  });

  it('parsePorts: single ports, ranges, lists with an optional space, at most 15 pieces', () => {
    expect(parsePorts('22')).toEqual([[22, 22]]);
    expect(parsePorts('22-24, 80,443')).toEqual([
      [22, 24],
      [80, 80],
      [443, 443],
    ]);
    expect(parsePorts('1-2,3-4,5-6,7-8,9-10,11-12,13-14,15')).toHaveLength(8);
    for (const bad of ['080', '0', '65536', '24-22', '22-22', '1,,2', '1,  2', 'a', '', '1-2-3'])
      expect(typeof parsePorts(bad), bad).toBe('string');
    expect(typeof parsePorts('1-2,3-4,5-6,7-8,9-10,11-12,13-14,15-16')).toBe('string');
  });

  it('checkRules: at most 25 rules across both directions', () => {
    const r = (n: number) => Array.from({ length: n }, () => rule());
    expect(problems({ inbound: r(20), outbound: r(5) })).toEqual([]);
    expect(problems({ inbound: r(20), outbound: r(6) })).toEqual(['rules']);
  });

  it('checkRules: ports only for TCP and UDP; addresses in IP/mask form, not empty, at most 255', () => {
    expect(problems({ inbound: [rule({ protocol: 'ICMP', ports: '22' })] })).toEqual([
      'rules.inbound[0].ports',
    ]);
    expect(problems({ inbound: [rule({ protocol: 'IPENCAP', ports: '22' })] })).toEqual([
      'rules.inbound[0].ports',
    ]);
    expect(problems({ inbound: [rule({ protocol: 'UDP', ports: '53' })] })).toEqual([]);
    expect(problems({ outbound: [rule({ addresses: { ipv4: ['192.0.2.1'] } })] })).toEqual([
      'rules.outbound[0].addresses.ipv4',
    ]);
    expect(problems({ inbound: [rule({ addresses: { ipv6: ['fe80::1%eth0/128'] } })] })).toEqual([
      'rules.inbound[0].addresses.ipv6',
    ]);
    expect(problems({ inbound: [rule({ addresses: { ipv4: [] } })] })).toEqual([
      'rules.inbound[0].addresses.ipv4',
    ]);
    expect(problems({ inbound: [rule({ addresses: {} })] })).toEqual([
      'rules.inbound[0].addresses',
    ]);
    const many = Array.from({ length: 200 }, (_, i) => `198.51.100.${i}/32`);
    const v6 = Array.from({ length: 56 }, (_, i) => `2001:db8::${i.toString(16)}/128`);
    expect(problems({ inbound: [rule({ addresses: { ipv4: many, ipv6: v6 } })] })).toEqual([
      'rules.inbound[0].addresses',
    ]);
    expect(problems({ inbound: [rule({ addresses: { ipv4: many, ipv6: v6.slice(1) } })] })).toEqual(
      [],
    );
    expect(problems({ inbound: [rule({ label: 'ab', description: '' })] })).toEqual([
      'rules.inbound[0].label',
      'rules.inbound[0].description',
    ]);
  });

  it('evaluate: the first matching rule wins, otherwise the policy', () => {
    const rules: ExpandedRules = {
      inbound: [
        { protocol: 'TCP', ports: '22', addresses: { ipv4: ['203.0.113.0/24'] }, action: 'DROP' },
        {
          protocol: 'TCP',
          ports: '22, 80-81',
          addresses: { ipv4: ['0.0.0.0/0'] },
          action: 'ACCEPT',
        },
        { protocol: 'ICMP', addresses: { ipv6: ['2001:db8::/32'] }, action: 'ACCEPT' },
      ],
      outbound: [],
    };
    const p = { direction: 'inbound' as const, protocol: 'TCP' as const };
    expect(evaluate(rules, 'DROP', { ...p, port: 22, address: '203.0.113.9' }).rule_index).toBe(0);
    expect(evaluate(rules, 'DROP', { ...p, port: 22, address: '203.0.113.9' }).action).toBe('DROP');
    expect(evaluate(rules, 'DROP', { ...p, port: 22, address: '198.51.100.1' })).toMatchObject({
      action: 'ACCEPT',
      rule_index: 1,
    });
    expect(evaluate(rules, 'DROP', { ...p, port: 81, address: '198.51.100.1' }).rule_index).toBe(1);
    expect(evaluate(rules, 'DROP', { ...p, port: 82, address: '198.51.100.1' })).toEqual({
      action: 'DROP',
      rule_index: null,
      rule: null,
    });
    const icmp = { direction: 'inbound' as const, protocol: 'ICMP' as const };
    expect(evaluate(rules, 'DROP', { ...icmp, address: '2001:db8:1::5' }).action).toBe('ACCEPT');
    expect(evaluate(rules, 'DROP', { ...icmp, address: '2001:db9::5' }).action).toBe('DROP');
    expect(evaluate(rules, 'ACCEPT', { ...p, direction: 'outbound', address: '1.1.1.1' })).toEqual({
      action: 'ACCEPT',
      rule_index: null,
      rule: null,
    });
  });
});
