import {
  type ExpandedRules,
  type Policy,
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
 * enters through it (the forward and input hooks, `iifname`). The filter is stateful like the
 * service's where the kernel can (bridge connection tracking, `conntrack`): replies of accepted
 * connections pass (`ct state established,related`). ARP and IPv6 neighbour discovery always pass
 * so that addresses resolve.
 */
export interface NftFirewall {
  id: number;
  rules: ExpandedRules;
  inboundPolicy: Policy;
  outboundPolicy: Policy;
}

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

/** The chain body of one firewall in one direction: its rules, then its policy. */
export function firewallChain(fw: NftFirewall, direction: 'inbound' | 'outbound'): string[] {
  const policy = direction === 'inbound' ? fw.inboundPolicy : fw.outboundPolicy;
  return [
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
    // (nf_conntrack_bridge); without it the rules alone decide, replies included.
    ...(opts.conntrack ? ['ct state established,related accept'] : []),
  ];
  const jumps = (direction: 'inbound' | 'outbound') =>
    inst.firewalls.map((fw) => `jump fw${fw.id}_${direction === 'inbound' ? 'in' : 'out'}`);
  for (const fw of inst.firewalls) {
    chain(`fw${fw.id}_in`, firewallChain(fw, 'inbound'));
    chain(`fw${fw.id}_out`, firewallChain(fw, 'outbound'));
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
