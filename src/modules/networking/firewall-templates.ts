import type { ApiFirewallTemplate } from './firewalls.schemas.js';

/**
 * The firewall templates the real service ships (`/networking/firewalls/templates`): `public` for
 * public interfaces (inbound SSH and ICMP from anywhere) and `vpc` for VPC interfaces (the same,
 * and TCP and UDP from the RFC 1918 ranges). Both drop other inbound traffic and accept all
 * outbound. The rules follow the provider's web manager's description of each template; the shapes
 * (policies, protocols, IPv6 only on the rules from anywhere, no outbound rules) follow the
 * recorded responses. A client creates a firewall from one by sending its `rules`.
 */
const ALL = { ipv4: ['0.0.0.0/0'], ipv6: ['::/0'] };
const RFC1918 = { ipv4: ['10.0.0.0/8', '192.168.0.0/17', '172.16.0.0/12'] };

const sharedInbound = [
  {
    protocol: 'TCP',
    ports: '22',
    addresses: ALL,
    action: 'ACCEPT',
    label: 'allow-inbound-ssh',
    description: 'Allow Inbound SSH Sources',
  },
  {
    protocol: 'ICMP',
    addresses: ALL,
    action: 'ACCEPT',
    label: 'allow-inbound-icmp',
    description: 'Allow Inbound ICMP',
  },
];

export const FIREWALL_TEMPLATES: readonly ApiFirewallTemplate[] = [
  {
    slug: 'public',
    rules: {
      inbound: sharedInbound,
      outbound: [],
      inbound_policy: 'DROP',
      outbound_policy: 'ACCEPT',
    },
  },
  {
    slug: 'vpc',
    rules: {
      inbound: [
        ...sharedInbound,
        {
          protocol: 'TCP',
          addresses: RFC1918,
          action: 'ACCEPT',
          label: 'allow-vpc-tcp',
          description: 'Allow TCP traffic for RFC1918 ranges',
        },
        {
          protocol: 'UDP',
          addresses: RFC1918,
          action: 'ACCEPT',
          label: 'allow-vpc-udp',
          description: 'Allow UDP traffic for RFC1918 ranges',
        },
      ],
      outbound: [],
      inbound_policy: 'DROP',
      outbound_policy: 'ACCEPT',
    },
  },
];
