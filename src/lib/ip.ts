/** IPv4 text to its 32-bit number. NaN unless a dotted quad of 0..255 without leading zeros. */
export function ipv4ToNum(a: string): number {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(a);
  if (!m) return Number.NaN;
  const parts = m.slice(1) as [string, string, string, string];
  // "010" is octal to some parsers and decimal to others: refuse it rather than guess.
  if (parts.some((p) => p.length > 1 && p.startsWith('0'))) return Number.NaN;
  const [a0, a1, a2, a3] = parts.map(Number) as [number, number, number, number];
  if (a0 > 255 || a1 > 255 || a2 > 255 || a3 > 255) return Number.NaN;
  return a0 * 2 ** 24 + a1 * 2 ** 16 + a2 * 2 ** 8 + a3;
}

export function numToIpv4(n: number): string {
  return [Math.floor(n / 2 ** 24) % 256, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

export interface Cidr4 {
  base: number;
  prefix: number;
  size: number;
}

/** `a.b.c.d/p` with the host bits zero; undefined otherwise. */
export function parseCidr4(cidr: string): Cidr4 | undefined {
  if (typeof cidr !== 'string') return undefined;
  const m = /^([0-9.]+)\/(\d{1,2})$/.exec(cidr);
  if (!m) return undefined;
  const prefix = Number(m[2]);
  const base = ipv4ToNum(m[1] ?? '');
  if (Number.isNaN(base) || prefix > 32) return undefined;
  const size = 2 ** (32 - prefix);
  if (base % size !== 0) return undefined;
  return { base, prefix, size };
}

export function maskOf(prefix: number): string {
  return numToIpv4(prefix === 0 ? 0 : 2 ** 32 - 2 ** (32 - prefix));
}

export function isIpv4(s: string): boolean {
  return !Number.isNaN(ipv4ToNum(s));
}

/** An IPv6 address as its eight 16-bit groups; undefined when not a valid address. */
export function parseIpv6(s: string): number[] | undefined {
  if (typeof s !== 'string' || s.length > 45 || !/^[0-9a-fA-F:.]+$/.test(s)) return undefined;
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (part: string): number[] | undefined => {
    if (part === '') return [];
    const out: number[] = [];
    const items = part.split(':');
    for (let i = 0; i < items.length; i++) {
      const g = items[i] as string;
      // An embedded IPv4 address may end the text (::ffff:192.0.2.1).
      if (i === items.length - 1 && g.includes('.')) {
        const v4 = ipv4ToNum(g);
        if (Number.isNaN(v4)) return undefined;
        out.push(Math.floor(v4 / 65536), v4 % 65536);
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(Number.parseInt(g, 16));
    }
    return out;
  };
  const head = groupsOf(halves[0] ?? '');
  if (!head) return undefined;
  if (halves.length === 1) return head.length === 8 ? head : undefined;
  const tail = groupsOf(halves[1] ?? '');
  if (!tail || head.length + tail.length > 7) return undefined;
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

/** The RFC 5952 text of eight groups: lower case, no leading zeros, the longest zero run as `::`. */
export function formatIpv6(groups: readonly number[]): string {
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (gs: readonly number[]) => gs.map((g) => g.toString(16)).join(':');
  if (best < 0) return hex(groups);
  return `${hex(groups.slice(0, best))}::${hex(groups.slice(best + bestLen))}`;
}

export function isIpv6(s: string): boolean {
  return parseIpv6(s) !== undefined;
}

/** The canonical text of an IPv6 address, or undefined when it is not one. */
export function canonicalIpv6(s: string): string | undefined {
  const g = parseIpv6(s);
  return g ? formatIpv6(g) : undefined;
}

/** The network of a `<prefix>/64` written CIDR: its first four groups; undefined otherwise. */
export function parseIpv6Net64(cidr: string): number[] | undefined {
  if (typeof cidr !== 'string') return undefined;
  const m = /^([0-9a-fA-F:]+)\/64$/.exec(cidr);
  const groups = m ? parseIpv6(m[1] ?? '') : undefined;
  if (!groups || groups.slice(4).some((g) => g !== 0)) return undefined;
  return groups.slice(0, 4);
}
