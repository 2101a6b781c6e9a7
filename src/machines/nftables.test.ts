import { execFileSync, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { Rule } from '../modules/networking/firewalls.rules.js';
import {
  firewallChain,
  instanceScript,
  type NftFirewall,
  nftTableName,
  removeScript,
  replyStatements,
  ruleStatements,
} from './nftables.js';

const rule = (r: Partial<Rule> & Pick<Rule, 'protocol'>): Rule => ({
  addresses: { ipv4: ['0.0.0.0/0'] },
  action: 'ACCEPT',
  ...r,
});

const fw = (over: Partial<NftFirewall> = {}): NftFirewall => ({
  id: 3,
  inboundPolicy: 'DROP',
  outboundPolicy: 'ACCEPT',
  rules: { inbound: [], outbound: [] },
  ...over,
});

describe('nftables translation', () => {
  it('ruleStatements: TCP with one port matches the peer source inbound and returns on ACCEPT', () => {
    expect(ruleStatements(rule({ protocol: 'TCP', ports: '22' }), 'inbound')).toEqual([
      'ip saddr 0.0.0.0/0 meta l4proto tcp th dport 22 return',
    ]);
  });

  it('ruleStatements: outbound matches the peer as destination; DROP drops', () => {
    expect(
      ruleStatements(
        rule({ protocol: 'UDP', ports: '53', action: 'DROP', addresses: { ipv4: ['10.0.0.0/8'] } }),
        'outbound',
      ),
    ).toEqual(['ip daddr 10.0.0.0/8 meta l4proto udp th dport 53 drop']);
  });

  it('ruleStatements: ports and ranges become one set', () => {
    expect(ruleStatements(rule({ protocol: 'TCP', ports: '22, 80-90,443' }), 'inbound')).toEqual([
      'ip saddr 0.0.0.0/0 meta l4proto tcp th dport { 22, 80-90, 443 } return',
    ]);
  });

  it('ruleStatements: no ports means every port of the protocol', () => {
    expect(ruleStatements(rule({ protocol: 'UDP' }), 'inbound')).toEqual([
      'ip saddr 0.0.0.0/0 meta l4proto udp return',
    ]);
  });

  it('ruleStatements: ICMP covers ICMP and ICMPv6; IPENCAP is IP protocol 4', () => {
    expect(ruleStatements(rule({ protocol: 'ICMP' }), 'inbound')).toEqual([
      'ip saddr 0.0.0.0/0 meta l4proto { icmp, ipv6-icmp } return',
    ]);
    expect(ruleStatements(rule({ protocol: 'IPENCAP' }), 'inbound')).toEqual([
      'ip saddr 0.0.0.0/0 meta l4proto 4 return',
    ]);
  });

  it('ruleStatements: IPv4 and IPv6 addresses give one statement each, in canonical form', () => {
    expect(
      ruleStatements(
        rule({
          protocol: 'TCP',
          ports: '443',
          addresses: { ipv4: ['192.0.2.7/24', '198.51.100.1/32'], ipv6: ['2001:DB8::1/64'] },
        }),
        'inbound',
      ),
    ).toEqual([
      'ip saddr { 192.0.2.0/24, 198.51.100.1/32 } meta l4proto tcp th dport 443 return',
      'ip6 saddr 2001:db8:0:0:0:0:0:0/64 meta l4proto tcp th dport 443 return',
    ]);
  });

  it('ruleStatements: networks inside another of the rule are left out (nft refuses overlaps)', () => {
    expect(
      ruleStatements(
        rule({
          protocol: 'TCP',
          addresses: {
            ipv4: ['10.1.2.3/32', '10.0.0.0/8'],
            ipv6: ['2001:db8::/48', '2001:db8::/32'],
          },
        }),
        'inbound',
      ),
    ).toEqual([
      'ip saddr 10.0.0.0/8 meta l4proto tcp return',
      'ip6 saddr 2001:db8:0:0:0:0:0:0/32 meta l4proto tcp return',
    ]);
  });

  it('ruleStatements: a rule without addresses matches nothing and gives no statement', () => {
    expect(ruleStatements(rule({ protocol: 'TCP', addresses: {} }), 'inbound')).toEqual([]);
  });

  it('firewallChain: the rules in order, then the direction policy (ACCEPT returns, DROP drops)', () => {
    const f = fw({
      rules: {
        inbound: [
          rule({ protocol: 'TCP', ports: '22' }),
          rule({ protocol: 'TCP', action: 'DROP' }),
        ],
        outbound: [rule({ protocol: 'TCP', ports: '25', action: 'DROP' })],
      },
    });
    expect(firewallChain(f, 'inbound')).toEqual([
      'ip saddr 0.0.0.0/0 meta l4proto tcp th dport 22 return',
      'ip saddr 0.0.0.0/0 meta l4proto tcp drop',
      'drop',
    ]);
    expect(firewallChain(f, 'outbound')).toEqual([
      'ip daddr 0.0.0.0/0 meta l4proto tcp th dport 25 drop',
      'return',
    ]);
  });

  it('replyStatements: inbound, the peers of outbound ACCEPT rules answer from the rule ports, TCP not opening', () => {
    const f = fw({
      outboundPolicy: 'DROP',
      rules: {
        inbound: [],
        outbound: [
          rule({ protocol: 'TCP', ports: '443, 8000-8080', addresses: { ipv4: ['192.0.2.0/24'] } }),
          rule({ protocol: 'UDP', ports: '53', addresses: { ipv6: ['2001:db8::/32'] } }),
        ],
      },
    });
    expect(replyStatements(f, 'inbound')).toEqual([
      'ip saddr 192.0.2.0/24 meta l4proto tcp th sport { 443, 8000-8080 } tcp flags & (syn | ack) != syn return',
      'ip6 saddr 2001:db8:0:0:0:0:0:0/32 meta l4proto udp th sport 53 return',
    ]);
  });

  it('replyStatements: outbound, the guest answers the peers an inbound ACCEPT rule lets in, from its ports', () => {
    const f = fw({
      inboundPolicy: 'DROP',
      rules: { inbound: [rule({ protocol: 'TCP', ports: '22' })], outbound: [] },
    });
    expect(replyStatements(f, 'outbound')).toEqual([
      'ip daddr 0.0.0.0/0 meta l4proto tcp th sport 22 tcp flags & (syn | ack) != syn return',
    ]);
  });

  it('replyStatements: DROP rules and ICMP rules have no replies; IPENCAP answers by protocol', () => {
    const f = fw({
      outboundPolicy: 'DROP',
      rules: {
        inbound: [],
        outbound: [
          rule({ protocol: 'TCP', ports: '25', action: 'DROP' }),
          rule({ protocol: 'ICMP' }),
          rule({ protocol: 'IPENCAP', addresses: { ipv4: ['198.51.100.1/32'] } }),
        ],
      },
    });
    expect(replyStatements(f, 'inbound')).toEqual([
      'ip saddr 198.51.100.1/32 meta l4proto 4 return',
    ]);
  });

  it('replyStatements: an ACCEPT policy lets every TCP segment but a SYN answer, and inbound UDP to the ephemeral ports', () => {
    const open = fw({ inboundPolicy: 'ACCEPT', outboundPolicy: 'ACCEPT' });
    expect(replyStatements(open, 'inbound')).toEqual([
      'meta l4proto tcp tcp flags & (syn | ack) != syn return',
      'meta l4proto udp th dport 32768-60999 return',
    ]);
    expect(replyStatements(open, 'outbound')).toEqual([
      'meta l4proto tcp tcp flags & (syn | ack) != syn return',
    ]);
    expect(
      replyStatements(fw({ inboundPolicy: 'DROP', outboundPolicy: 'DROP' }), 'inbound'),
    ).toEqual([]);
  });

  it('firewallChain: without bridge conntrack the reply rules come first; with it there are none', () => {
    const f = fw({
      outboundPolicy: 'DROP',
      rules: {
        inbound: [rule({ protocol: 'TCP', ports: '22' })],
        outbound: [rule({ protocol: 'UDP', ports: '53' })],
      },
    });
    expect(firewallChain(f, 'inbound', { conntrack: false })).toEqual([
      'ip saddr 0.0.0.0/0 meta l4proto udp th sport 53 return',
      'ip saddr 0.0.0.0/0 meta l4proto tcp th dport 22 return',
      'drop',
    ]);
    expect(firewallChain(f, 'inbound', { conntrack: true })).toEqual([
      'ip saddr 0.0.0.0/0 meta l4proto tcp th dport 22 return',
      'drop',
    ]);
  });

  it('instanceScript: replaces the table whole and filters the tap in both directions', () => {
    const text = instanceScript(
      { instanceId: 7, tap: 'stx7', firewalls: [fw(), fw({ id: 4 })] },
      { conntrack: false },
    );
    const lines = text.split('\n').map((l) => l.trim());
    expect(lines.slice(0, 3)).toEqual([
      'table bridge stratus_7',
      'delete table bridge stratus_7',
      'table bridge stratus_7 {',
    ]);
    // Every firewall must accept: the jumps run in order; the chains' policies drop or return.
    const inbound = text.slice(text.indexOf('chain inbound {'));
    expect(inbound.indexOf('jump fw3_in')).toBeLessThan(inbound.indexOf('jump fw4_in'));
    expect(lines).toContain('oifname "stx7" jump inbound');
    expect(lines).toContain('iifname "stx7" jump outbound');
    expect(lines).toContain('ether type arp accept');
    expect(text).not.toContain('ct state');
    // Stateless: ICMP errors and echo replies pass both ways.
    expect(lines).toContain(
      'icmp type { echo-reply, destination-unreachable, time-exceeded, parameter-problem } accept',
    );
    expect(nftTableName(7)).toBe('stratus_7');
  });

  it('instanceScript: with bridge connection tracking, replies of accepted connections pass', () => {
    const text = instanceScript(
      { instanceId: 7, tap: 'stx7', firewalls: [fw()] },
      { conntrack: true },
    );
    expect(text).toContain('ct state established,related accept');
    expect(text).not.toContain('tcp flags');
    expect(text).not.toContain('icmp type');
  });

  it('instanceScript: refuses a tap name that is not an interface name', () => {
    expect(() =>
      instanceScript({ instanceId: 7, tap: 'x" accept', firewalls: [] }, { conntrack: false }),
    ).toThrow(/interface name/);
  });

  it('removeScript: deletes the table, and is harmless when there is none', () => {
    expect(removeScript(9)).toBe('table bridge stratus_9\ndelete table bridge stratus_9\n');
  });
});

const root = process.getuid?.() === 0;
const hasNft = spawnSync('nft', ['--version']).status === 0;
if (!root || !hasNft)
  console.warn(
    `Skipping the nft syntax check: ${!root ? 'not root' : 'no nft (apt-get install nftables)'}`,
  );

describe.skipIf(!root || !hasNft)('nftables translation, checked by nft', () => {
  it('instanceScript: nft accepts the script of every protocol, port form and address family', () => {
    const f = fw({
      rules: {
        inbound: [
          rule({
            protocol: 'TCP',
            ports: '22, 80-90',
            addresses: { ipv4: ['0.0.0.0/0'], ipv6: ['::/0'] },
          }),
          rule({ protocol: 'UDP', addresses: { ipv4: ['192.0.2.1/32'] } }),
          rule({ protocol: 'ICMP', addresses: { ipv4: ['198.51.100.0/24'] } }),
          rule({ protocol: 'IPENCAP', action: 'DROP', addresses: { ipv6: ['2001:db8::/32'] } }),
        ],
        outbound: [
          rule({ protocol: 'TCP', ports: '25', action: 'DROP' }),
          rule({
            protocol: 'UDP',
            ports: '53',
            addresses: { ipv4: ['0.0.0.0/0'], ipv6: ['::/0'] },
          }),
          rule({ protocol: 'IPENCAP', addresses: { ipv4: ['192.0.2.1/32'] } }),
        ],
      },
      outboundPolicy: 'DROP',
    });
    // Check mode (-c): parsed and validated by the kernel, nothing applied.
    execFileSync('nft', ['-c', '-f', '-'], {
      input: instanceScript(
        { instanceId: 99999, tap: 'stx99999', firewalls: [f, fw({ id: 4 })] },
        { conntrack: false },
      ),
    });
    execFileSync('nft', ['-c', '-f', '-'], { input: removeScript(99999) });
  });
  it('instanceScript: applied twice it replaces the table whole; removeScript deletes it', () => {
    // Per process: the SQLite and PostgreSQL runs may share the host's kernel at once.
    const id = 900_000 + (process.pid % 100_000);
    const first = fw({
      rules: { inbound: [rule({ protocol: 'TCP', ports: '22' })], outbound: [] },
    });
    const second = fw({
      rules: { inbound: [rule({ protocol: 'TCP', ports: '2222' })], outbound: [] },
    });
    const list = () =>
      spawnSync('nft', ['list', 'table', 'bridge', nftTableName(id)], { encoding: 'utf8' });
    try {
      for (const f of [first, second])
        execFileSync('nft', ['-f', '-'], {
          input: instanceScript(
            { instanceId: id, tap: `stx${id}`, firewalls: [f] },
            { conntrack: false },
          ),
        });
      const text = list().stdout;
      expect(text).toContain('tcp dport 2222 return');
      expect(text).not.toContain('tcp dport 22 return');
    } finally {
      execFileSync('nft', ['-f', '-'], { input: removeScript(id) });
    }
    expect(list().status).not.toBe(0);
    // Removing what is not there is harmless.
    execFileSync('nft', ['-f', '-'], { input: removeScript(id) });
  });
});
