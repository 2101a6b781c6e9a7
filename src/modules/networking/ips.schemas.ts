import { Type } from '@sinclair/typebox';
import { Nullable, PageOf, PageQuery } from '../../http/schemas/common.js';

const ADDRESS_TYPES = ['ipv4', 'ipv6', 'ipv6/pool', 'ipv6/range'];

/** A VPC interface's 1:1 NAT for a public IPv4 address; null when there is none. */
const VpcNat = Nullable(
  Type.Object({ vpc_id: Type.Integer(), subnet_id: Type.Integer(), address: Type.String() }),
);

/** What the real wire adds to every IPv4 address: its instance, no interface, not reserved. */
const WireIpFields = {
  assigned_entity: Nullable(
    Type.Object({
      id: Type.Integer(),
      label: Type.String(),
      type: Type.String(),
      url: Type.String(),
    }),
  ),
  interface_id: Nullable(Type.Integer()),
  reserved: Type.Boolean(),
};

/** `IPAddress`: a public IPv4 address, or any address viewed on its own. */
export const IpAddressSchema = Type.Object({
  address: Type.String(),
  gateway: Nullable(Type.String()),
  subnet_mask: Type.String(),
  prefix: Type.Integer(),
  type: Type.String({ enum: ADDRESS_TYPES }),
  public: Type.Boolean(),
  rdns: Nullable(Type.String()),
  compute_id: Nullable(Type.Integer()),
  region: Type.String(),
  vpc_nat_1_1: VpcNat,
  ...WireIpFields,
  tags: Type.Array(Type.String()),
});

/** `IPAddressPrivate`: gateway and rdns are null (the reference shows null in its example). */
export const IpAddressPrivateSchema = Type.Object({
  address: Type.String(),
  gateway: Nullable(Type.String()),
  subnet_mask: Type.String(),
  prefix: Type.Integer(),
  type: Type.String(),
  public: Type.Boolean(),
  rdns: Nullable(Type.String()),
  compute_id: Type.Integer(),
  region: Type.String(),
  vpc_nat_1_1: VpcNat,
  ...WireIpFields,
});

/** `IPAddressV6Slaac` and `IPAddressV6LinkLocal`: rdns null unless set (SLAAC only). */
export const IpAddressV6Schema = Type.Object({
  address: Type.String(),
  gateway: Type.String(),
  subnet_mask: Type.String(),
  prefix: Type.Integer(),
  type: Type.String(),
  public: Type.Boolean(),
  rdns: Nullable(Type.String()),
  compute_id: Type.Integer(),
  region: Type.String(),
});

export const IpAddressPage = PageOf(IpAddressSchema);

export const IpListQuery = Type.Object({
  ...PageQuery.properties,
  skip_ipv6_rdns: Type.Optional(
    Type.Boolean({ default: false, description: 'When true, rdns of IPv6 addresses is null.' }),
  ),
});

export const AddressParams = Type.Object({ address: Type.String() });

export const RdnsBody = Type.Object({
  rdns: Nullable(
    Type.String({
      description: 'A hostname; null resets a public IPv4 address to its default name.',
    }),
  ),
});

export const AllocateIpBody = Type.Object({
  type: Type.String({ enum: ['ipv4'] }),
  public: Type.Boolean(),
  compute_id: Type.Integer(),
});

export const AssignBody = Type.Object({
  region: Type.String(),
  assignments: Type.Array(
    Type.Object({
      address: Type.String({ description: 'an IPv4 address, or an IPv6 range with /56 or /64' }),
      compute_id: Type.Integer(),
    }),
  ),
});

export const ShareBody = Type.Object({
  compute_id: Type.Integer(),
  ips: Type.Array(
    Type.String({ description: 'IPv4 addresses and IPv6 ranges without prefix length' }),
  ),
});

export const Ipv6PoolSchema = Type.Object({
  range: Type.String(),
  prefix: Type.Integer(),
  region: Type.String(),
  route_target: Nullable(Type.String()),
});
export const Ipv6PoolPage = PageOf(Ipv6PoolSchema);

export const Ipv6RangeSchema = Type.Object({
  range: Type.String(),
  prefix: Type.Integer(),
  region: Type.String(),
  route_target: Type.String(),
});
export const Ipv6RangePage = PageOf(Ipv6RangeSchema);

export const Ipv6RangeBgpSchema = Type.Object({
  range: Type.String(),
  prefix: Type.Integer(),
  region: Type.String(),
  is_bgp: Type.Boolean(),
  computes: Type.Array(Type.Integer()),
});

export const CreateRangeBody = Type.Object({
  prefix_length: Type.Integer({ enum: [56, 64] }),
  compute_id: Type.Optional(Type.Integer()),
  route_target: Type.Optional(Type.String()),
});

export const CreatedRangeSchema = Type.Object({
  range: Type.String(),
  route_target: Type.String(),
});

export const RangeParams = Type.Object({ range: Type.String() });

export const VlanSchema = Type.Object({
  label: Type.String(),
  region: Type.String(),
  computes: Type.Array(Type.Integer()),
  created: Type.String(),
});
export const VlanPage = PageOf(VlanSchema);
