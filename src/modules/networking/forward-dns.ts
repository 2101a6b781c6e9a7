import type { Resolver } from 'node:dns/promises';
import { canonicalIpv6, isIpv4 } from '../../lib/ip.js';

/**
 * The forward-DNS check of reverse DNS updates: the name must resolve (A for IPv4, AAAA for
 * IPv6) to the address, asked of the resolver the operator configures (STRATUS_RDNS_RESOLVER).
 * Without one, any valid hostname is accepted.
 */
export class ForwardDns {
  private readonly resolver: Resolver | undefined;

  constructor(server: string | undefined) {
    if (server === undefined) return;
    // Node's DNS resolver is loaded only where one is configured (not at every start).
    const { Resolver } = process.getBuiltinModule('node:dns/promises');
    this.resolver = new Resolver({ timeout: 2000, tries: 2 });
    this.resolver.setServers([server]);
  }

  get enabled(): boolean {
    return this.resolver !== undefined;
  }

  /** The problem with `name` for `address`, or undefined when its forward record matches. */
  async problem(name: string, address: string): Promise<string | undefined> {
    if (!this.resolver) return undefined;
    const host = name.endsWith('.') ? name.slice(0, -1) : name;
    const v4 = isIpv4(address);
    let found: string[] = [];
    try {
      found = v4 ? await this.resolver.resolve4(host) : await this.resolver.resolve6(host);
    } catch {
      found = [];
    }
    const want = v4 ? address : canonicalIpv6(address);
    const ok = found.some((a) => (v4 ? a === want : canonicalIpv6(a) === want));
    return ok
      ? undefined
      : `${host} must have a forward DNS (${v4 ? 'A' : 'AAAA'}) record pointing to ${address} first`;
  }
}
