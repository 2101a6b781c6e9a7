import { Type } from '@sinclair/typebox';
import { Nullable, PageOf, PageQuery } from '../../http/schemas/common.js';

const ADDRESS_TYPES = ['ipv4', 'ipv6', 'ipv6/pool', 'ipv6/range'];

/** A VPC interface's 1:1 NAT for a public IPv4 address; null when there is none. */
const VpcNat = Nullable(
  Type.Object({ vpc_id: Type.Integer(), subnet_id: Type.Integer(), address: Type.String() }),
);

/** `IPAddress`: a public IPv4 address, or any address viewed on its own. */
export const IpAddressSchema = Type.Object({
  address: Type.String(),
  gateway: Nullable(Type.String()),
  subnet_mask: Type.String(),
  prefix: Type.Integer(),
  type: Type.String({ enum: ADDRESS_TYPES }),
  public: Type.Boolean(),
  rdns: Nullable(Type.String()),
  compute_id: Type.Integer(),
  region: Type.String(),
  vpc_nat_1_1: VpcNat,
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
