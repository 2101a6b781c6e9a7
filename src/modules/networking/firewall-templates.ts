import type { ApiFirewallTemplate } from './firewalls.schemas.js';

/**
 * The firewall templates the real service ships (`/networking/firewalls/templates`), as its
 * recorded responses show them (the provider's Go SDK's recordings; IPv6 `::/0` where the
 * recording's addresses were masked): `vpc` for VPC interfaces (inbound SSH and ICMP from
 * anywhere, TCP and UDP from the RFC 1918 ranges) and `public` for public interfaces (inbound SSH
 * and ICMP). Both drop other inbound traffic and accept all outbound; the service lists `vpc`
 * before `public`. Its internal template (for its own staff's accounts only) is not served. A
 * client creates a firewall from one by sending its `rules`.
 */
const ALL = { ipv4: ['0.0.0.0/0'], ipv6: ['::/0'] };
const RFC1918 = { ipv4: ['10.0.0.0/8', '192.168.0.0/17', '172.16.0.0/12'] };

const sshAndIcmp = [
  {
    protocol: 'TCP',
    addresses: ALL,
    action: 'ACCEPT',
    label: 'accept-inbound-ssh',
    ports: '22',
    description: 'Accept inbound SSH',
  },
  {
    protocol: 'ICMP',
    addresses: ALL,
    action: 'ACCEPT',
    label: 'accept-inbound-icmp',
    description: 'Accept inbound ICMP',
  },
];

const rfc1918 = (protocol: 'TCP' | 'UDP') => ({
  protocol,
  addresses: RFC1918,
  action: 'ACCEPT',
  label: 'accept-inbound-rfc1918',
  ports: '1-65535',
  description: 'Accept inbound RFC-1918',
});

export const FIREWALL_TEMPLATES: readonly ApiFirewallTemplate[] = [
  {
    slug: 'vpc',
    rules: {
      inbound: [...sshAndIcmp, rfc1918('TCP'), rfc1918('UDP')],
      inbound_policy: 'DROP',
      outbound: [],
      outbound_policy: 'ACCEPT',
    },
  },
  {
    slug: 'public',
    rules: {
      inbound: sshAndIcmp,
      inbound_policy: 'DROP',
      outbound: [],
      outbound_policy: 'ACCEPT',
    },
  },
];
