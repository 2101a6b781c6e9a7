import type { MachineFirewall } from './driver.js';
import {
  type Rule,
  parseNet4,
  parseNet6,
  parsePorts,
} from '../modules/networking/firewalls.rules.js';

/**
 * nftables for bridge mode: one instance's firewalls as one `bridge` family table that filters the
 * frames through its tap device. Pure (text in, text out) so that a unit test covers it rule by
 * rule; `nft -f` applies the text atomically (the add-delete-define idiom replaces the table whole).
 *
 * Semantics (the firewalls area's `evaluate`): per firewall and direction the rules in order, the
 * first match wins, else the direction's policy. With several firewalls a packet must be accepted
 * by each (a firewall's ACCEPT returns to the next; its DROP is final). Inbound is what leaves the
 * bridge through the tap (to the guest: the forward and output hooks, `oifname`); outbound is what
 * enters through it (the forward and input hooks, `iifname`). ARP and IPv6 neighbour discovery
 * always pass so that addresses resolve.
 *
 * Replies. The service's firewalls are stateful: the rules judge who may open a connection, and
 * its replies pass. Where the kernel tracks bridged connections (nf_conntrack_bridge) that is
 * `ct state established,related accept`. Where it does not (the kernel refuses `ct` in a bridge
 * table), each firewall's chain starts with stateless reply rules, the mirror of the other
 * direction (`replyStatements`): what an ACCEPT rule lets the guest open, or lets a peer open on
 * the guest, may answer from the rule's ports to the rule's addresses, TCP only when it is not a
 * connection's first segment (a SYN without ACK); an ACCEPT policy lets every such TCP segment
 * answer, and, inbound, UDP to the guest's ephemeral ports (Linux's 32768-60999) answer what the
 * guest sent. ICMP errors and echo replies always pass. So the rules still decide every new TCP
 * connection both ways; what a stateless filter cannot tell (an ACK without a connection, a UDP
 * datagram that only looks like a reply) is documented in docs/operations.md.
 */
export type NftFirewall = MachineFirewall;

export interface NftInstance {
  instanceId: number;
  /** The instance's tap device on the bridge. */
  tap: string;
  firewalls: NftFirewall[];
}

/** The table's name for an instance (family `bridge`). */
export const nftTableName = (instanceId: number): string => `stratus_${instanceId}`;

const quote = (s: string): string => {
  if (!/^[A-Za-z0-9_.-]{1,15}$/.test(s)) throw new Error(`Not an interface name: ${s}`);
  return `"${s}"`;
};

/** Networks in canonical form (host bits cleared), those inside another left out (nft refuses overlaps). */
function nets4(list: readonly string[]): string[] {
  const parsed = list
    .map(parseNet4)
    .filter((n): n is NonNullable<typeof n> => n !== undefined)
    .sort((a, b) => a.bits - b.bits || a.base - b.base);
  const kept: typeof parsed = [];
  for (const n of parsed) {
    const inside = kept.some(
      (k) => k.bits <= n.bits && n.base - (n.base % 2 ** (32 - k.bits)) === k.base,
    );
    if (!inside) kept.push(n);
  }
  return kept.map((n) => {
    const b = n.base;
    return `${(b >>> 24) & 255}.${(b >>> 16) & 255}.${(b >>> 8) & 255}.${b & 255}/${n.bits}`;
  });
}

function nets6(list: readonly string[]): string[] {
  const parsed = list
    .map(parseNet6)
    .filter((n): n is NonNullable<typeof n> => n !== undefined)
    .sort((a, b) => a.bits - b.bits || (a.base < b.base ? -1 : a.base > b.base ? 1 : 0));
  const kept: typeof parsed = [];
  for (const n of parsed) {
    const inside = kept.some((k) => {
      if (k.bits > n.bits) return false;
      const host = (1n << BigInt(128 - k.bits)) - 1n;
      return (n.base & ~host) === k.base;
    });
    if (!inside) kept.push(n);
  }
  return kept.map((n) => {
    const groups: string[] = [];
    for (let i = 7; i >= 0; i--) groups.push(((n.base >> BigInt(i * 16)) & 0xffffn).toString(16));
    return `${groups.join(':')}/${n.bits}`;
  });
}

const set = (items: readonly string[]): string =>
  items.length === 1 ? (items[0] as string) : `{ ${items.join(', ')} }`;

/** The nft statements of one rule (none when it can match nothing, like `evaluate`). */
export function ruleStatements(rule: Rule, direction: 'inbound' | 'outbound'): string[] {
  const verdict = rule.action === 'ACCEPT' ? 'return' : 'drop';
  // The peer: the source of what comes in, the destination of what goes out.
  const side = direction === 'inbound' ? 'saddr' : 'daddr';
  let proto: string;
  switch (rule.protocol) {
    case 'TCP':
    case 'UDP': {
      const l4 = rule.protocol.toLowerCase();
      proto = `meta l4proto ${l4}`;
      if (rule.ports !== undefined) {
        const ranges = parsePorts(rule.ports);
        if (typeof ranges === 'string') return [];
        proto += ` th dport ${set(ranges.map(([lo, hi]) => (lo === hi ? `${lo}` : `${lo}-${hi}`)))}`;
      }
      break;
    }
    case 'ICMP':
      proto = 'meta l4proto { icmp, ipv6-icmp }';
      break;
    case 'IPENCAP':
      // IP in IP: protocol 4.
      proto = 'meta l4proto 4';
      break;
  }
  const out: string[] = [];
  const v4 = nets4(rule.addresses.ipv4 ?? []);
  const v6 = nets6(rule.addresses.ipv6 ?? []);
  if (v4.length > 0) out.push(`ip ${side} ${set(v4)} ${proto} ${verdict}`);
  if (v6.length > 0) out.push(`ip6 ${side} ${set(v6)} ${proto} ${verdict}`);
  return out;
}

/** TCP that does not open a connection: anything but a SYN without ACK. */
const NOT_SYN = 'tcp flags & (syn | ack) != syn';
/** Linux's default ephemeral ports (net.ipv4.ip_local_port_range): where a guest's clients bind. */
export const EPHEMERAL_PORTS = '32768-60999';

/**
 * Stateless reply rules of one firewall in `direction` (no bridge connection tracking): the
 * answers to what the other direction's ACCEPT rules and policy let through. Inbound, the peer of
 * an outbound rule answers from the rule's ports (its source); outbound, the guest answers a peer
 * an inbound rule let in, from the rule's ports, to the rule's addresses.
 */
export function replyStatements(fw: NftFirewall, direction: 'inbound' | 'outbound'): string[] {
  const other = direction === 'inbound' ? 'outbound' : 'inbound';
  const side = direction === 'inbound' ? 'saddr' : 'daddr';
  const out: string[] = [];
  for (const rule of fw.rules[other]) {
    if (rule.action !== 'ACCEPT' || rule.protocol === 'ICMP') continue;
    let match: string;
    if (rule.protocol === 'TCP' || rule.protocol === 'UDP') {
      match = `meta l4proto ${rule.protocol.toLowerCase()}`;
      if (rule.ports !== undefined) {
        const ranges = parsePorts(rule.ports);
        if (typeof ranges === 'string') continue;
        match += ` th sport ${set(ranges.map(([lo, hi]) => (lo === hi ? `${lo}` : `${lo}-${hi}`)))}`;
      }
      if (rule.protocol === 'TCP') match += ` ${NOT_SYN}`;
    } else {
      match = 'meta l4proto 4';
    }
    const v4 = nets4(rule.addresses.ipv4 ?? []);
    const v6 = nets6(rule.addresses.ipv6 ?? []);
    if (v4.length > 0) out.push(`ip ${side} ${set(v4)} ${match} return`);
    if (v6.length > 0) out.push(`ip6 ${side} ${set(v6)} ${match} return`);
  }
  const otherPolicy = direction === 'inbound' ? fw.outboundPolicy : fw.inboundPolicy;
  if (otherPolicy === 'ACCEPT') {
    out.push(`meta l4proto tcp ${NOT_SYN} return`);
    if (direction === 'inbound') out.push(`meta l4proto udp th dport ${EPHEMERAL_PORTS} return`);
  }
  return out;
}

/** The chain body of one firewall in one direction: its rules, then its policy. */
export function firewallChain(
  fw: NftFirewall,
  direction: 'inbound' | 'outbound',
  opts: { conntrack: boolean } = { conntrack: true },
): string[] {
  const policy = direction === 'inbound' ? fw.inboundPolicy : fw.outboundPolicy;
  return [
    ...(opts.conntrack ? [] : replyStatements(fw, direction)),
    ...fw.rules[direction].flatMap((r) => ruleStatements(r, direction)),
    policy === 'ACCEPT' ? 'return' : 'drop',
  ];
}

/**
 * The nft script that replaces the instance's table (applied with `nft -f`, atomically). An
 * instance without firewalls gets no table: `removeScript` instead.
 */
export function instanceScript(inst: NftInstance, opts: { conntrack: boolean }): string {
  const table = nftTableName(inst.instanceId);
  const tap = quote(inst.tap);
  const lines: string[] = [
    `table bridge ${table}`,
    `delete table bridge ${table}`,
    `table bridge ${table} {`,
  ];
  const chain = (name: string, body: string[]) => {
    lines.push(`  chain ${name} {`);
    for (const s of body) lines.push(`    ${s}`);
    lines.push('  }');
  };
  const always = [
    // ARP first: it has no connection tracking (its `ct state` reads as invalid).
    'ether type arp accept',
    'icmpv6 type { nd-neighbor-solicit, nd-neighbor-advert, nd-router-solicit, nd-router-advert } accept',
    // Replies of accepted connections, where the kernel tracks bridged connections
    // (nf_conntrack_bridge); without it each firewall's chain starts with its reply rules, and
    // ICMP errors and echo replies pass.
    ...(opts.conntrack
      ? ['ct state established,related accept']
      : [
          'icmp type { echo-reply, destination-unreachable, time-exceeded, parameter-problem } accept',
          'icmpv6 type { echo-reply, destination-unreachable, packet-too-big, time-exceeded, parameter-problem } accept',
        ]),
  ];
  const jumps = (direction: 'inbound' | 'outbound') =>
    inst.firewalls.map((fw) => `jump fw${fw.id}_${direction === 'inbound' ? 'in' : 'out'}`);
  for (const fw of inst.firewalls) {
    chain(`fw${fw.id}_in`, firewallChain(fw, 'inbound', opts));
    chain(`fw${fw.id}_out`, firewallChain(fw, 'outbound', opts));
  }
  chain('inbound', [...always, ...jumps('inbound'), 'accept']);
  chain('outbound', [...always, ...jumps('outbound'), 'accept']);
  chain('forward', [
    'type filter hook forward priority filter; policy accept;',
    `oifname ${tap} jump inbound`,
    `iifname ${tap} jump outbound`,
  ]);
  chain('output', [
    'type filter hook output priority filter; policy accept;',
    `oifname ${tap} jump inbound`,
  ]);
  chain('input', [
    'type filter hook input priority filter; policy accept;',
    `iifname ${tap} jump outbound`,
  ]);
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

/** The nft script that removes the instance's table (a no-op when there is none). */
export function removeScript(instanceId: number): string {
  const table = nftTableName(instanceId);
  return `table bridge ${table}\ndelete table bridge ${table}\n`;
}
