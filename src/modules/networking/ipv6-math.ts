import { formatIpv6, parseIpv6 } from '../../lib/ip.js';

/** An IPv6 network: its first address as a 128-bit number and its prefix length. */
export interface Net6 {
  base: bigint;
  bits: number;
}

export const toBig = (groups: readonly number[]): bigint =>
  groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);

export function fromBig(n: bigint): string {
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((n >> BigInt(i * 16)) & 0xffffn));
  return formatIpv6(groups);
}

export const sizeOf = (bits: number): bigint => 1n << BigInt(128 - bits);

/** `addr/n` with the host bits zero; undefined otherwise. */
export function parseNet6Aligned(text: string): Net6 | undefined {
  if (typeof text !== 'string') return undefined;
  const m = /^([0-9a-fA-F:]+)\/(\d{1,3})$/.exec(text);
  const g = m ? parseIpv6(m[1] ?? '') : undefined;
  const bits = Number(m?.[2]);
  if (!g || !(bits >= 0 && bits <= 128)) return undefined;
  const base = toBig(g);
  return base % sizeOf(bits) === 0n ? { base, bits } : undefined;
}

/** A configured range space: an aligned network of /56 or larger. */
export function rangeSpaceOf(text: string): Net6 | undefined {
  const n = parseNet6Aligned(text);
  return n && n.bits <= 56 ? n : undefined;
}

export const overlaps = (a: Net6, b: Net6): boolean =>
  a.base < b.base + sizeOf(b.bits) && b.base < a.base + sizeOf(a.bits);

/** The lowest block of `bits` in `space` that overlaps none of `used`. */
export function firstFree(space: Net6, bits: number, used: readonly Net6[]): Net6 | undefined {
  const step = sizeOf(bits);
  const end = space.base + sizeOf(space.bits);
  const sorted = [...used].sort((a, b) => (a.base < b.base ? -1 : a.base > b.base ? 1 : 0));
  let candidate = space.base;
  for (const u of sorted) {
    if (candidate + step <= u.base) break;
    const uEnd = u.base + sizeOf(u.bits);
    if (uEnd > candidate) candidate = ((uEnd + step - 1n) / step) * step;
  }
  return candidate + step <= end ? { base: candidate, bits } : undefined;
}
