import { Type } from '@sinclair/typebox';
import { Nullable, PageOf, PageQuery } from '../../http/schemas/common.js';

const ADDRESS_TYPES = ['ipv4', 'ipv6', 'ipv6/pool', 'ipv6/range'];

/** A VPC interface's 1:1 NAT for a public IPv4 address; null when there is none. */
const VpcNat = Nullable(
  Type.Object({ vpc_id: Type.Integer(), subnet_id: Type.Integer(), address: Type.String() }),
);

/** The instance that holds an address (null while a reserved address is unassigned). */
const AssignedEntity = Nullable(
  Type.Object({
    id: Type.Integer(),
    label: Type.String(),
    type: Type.String(),
    url: Type.String(),
  }),
);

/** Fields of the newer wire shared by every IPv4 view: reservations and the holder. */
const reservationFields = {
  /** The new-generation interface holding the address: null for addresses of configs. */
  interface_id: Nullable(Type.Integer()),
  reserved: Type.Boolean(),
  assigned_entity: AssignedEntity,
};

/**
 * `IPAddress`: a public IPv4 address, or any address viewed on its own. `compute_id` is null
 * for a reserved address no instance holds.
 */
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
  ...reservationFields,
  /** A reserved address's tags (answers about reserved addresses only). */
  tags: Type.Optional(Type.Array(Type.String())),
});

/** A reserved IPv4 address (`/networking/reserved/ips`), with its tags. */
export const ReservedIpSchema = Type.Object({
  ...IpAddressSchema.properties,
  tags: Type.Array(Type.String()),
});
export const ReservedIpPage = PageOf(ReservedIpSchema);

/** `IPAddressPrivate`: gateway and rdns are null (the reference shows null in its example). */
export const IpAddressPrivateSchema = Type.Object({
  address: Type.String(),
  gateway: Nullable(Type.String()),
  subnet_mask: Type.String(),
  prefix: Type.Integer(),
  type: Type.String(),
  public: Type.Boolean(),
  rdns: Nullable(Type.String()),
  compute_id: Nullable(Type.Integer()),
  region: Type.String(),
  vpc_nat_1_1: VpcNat,
  ...reservationFields,
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

/**
 * `POST /networking/ips`: an address for an instance, or (with `reserved`) a reserved address in
 * a region or for an instance.
 */
export const AllocateIpBody = Type.Object({
  type: Type.String({ description: 'ipv4 (the only type allocated)' }),
  public: Type.Boolean(),
  compute_id: Type.Optional(Nullable(Type.Integer())),
  reserved: Type.Optional(Nullable(Type.Boolean({ default: false }))),
  region: Type.Optional(Nullable(Type.String())),
});

/** `PUT /networking/ips/{address}`: reverse DNS and whether the address is reserved. */
export const UpdateIpBody = Type.Object({
  rdns: Type.Optional(
    Nullable(
      Type.String({
        description: 'A hostname; null resets a public IPv4 address to its default name.',
      }),
    ),
  ),
  reserved: Type.Optional(Nullable(Type.Boolean())),
});

/** Optional fields take null for "not given", as clients send them. */
export const ReserveIpBody = Type.Object({
  region: Type.String(),
  tags: Type.Optional(Nullable(Type.Array(Type.String()))),
});

export const UpdateReservedIpBody = Type.Object({
  tags: Type.Optional(Nullable(Type.Array(Type.String()))),
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

/** A VLAN by region and label (`DELETE /networking/vlans/{regionId}/{label}`). */
export const VlanParams = Type.Object({
  regionId: Type.String({ minLength: 1, maxLength: 64 }),
  label: Type.String({ minLength: 1, maxLength: 64 }),
});
