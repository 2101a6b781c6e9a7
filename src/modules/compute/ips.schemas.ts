import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas/common.js';
import {
  IpAddressPrivateSchema,
  IpAddressSchema,
  IpAddressV6Schema,
} from '../networking/ips.schemas.js';

/** A VPC interface's address (`vpc` of the instance's networking view). */
export const VpcIpSchema = Type.Object({
  active: Type.Boolean(),
  address: Nullable(Type.String()),
  address_range: Nullable(Type.String()),
  /** The profile of a legacy interface; null for an instance's own interface. */
  config_id: Nullable(Type.Integer()),
  gateway: Nullable(Type.String()),
  interface_id: Type.Integer(),
  compute_id: Type.Integer(),
  nat_1_1: Nullable(Type.String()),
  prefix: Nullable(Type.Integer()),
  region: Type.String(),
  subnet_id: Type.Integer(),
  subnet_mask: Type.String(),
  vpc_id: Type.Integer(),
  database_id: Nullable(Type.Integer()),
  nodebalancer_id: Nullable(Type.Integer()),
});

/**
 * A VPC interface's IPv6 range (`GET /vpcs/ipv6s`): the wire's shape, with the IPv4 fields
 * empty (`address`, `address_range`, `gateway` null, `nat_1_1` and `subnet_mask` "").
 */
export const VpcIpv6Schema = Type.Object({
  active: Type.Boolean(),
  address: Type.Null(),
  address_range: Type.Null(),
  config_id: Nullable(Type.Integer()),
  gateway: Type.Null(),
  interface_id: Type.Integer(),
  compute_id: Type.Integer(),
  nat_1_1: Type.String(),
  prefix: Type.Integer(),
  region: Type.String(),
  subnet_id: Type.Integer(),
  subnet_mask: Type.String(),
  vpc_id: Type.Integer(),
  database_id: Nullable(Type.Integer()),
  nodebalancer_id: Nullable(Type.Integer()),
  ipv6_range: Type.String(),
  ipv6_is_public: Type.Boolean(),
  /** The instance's SLAAC address in a SLAAC range; none in a routed range. */
  ipv6_addresses: Type.Array(Type.Object({ slaac_address: Type.String() })),
});
const Ipv6RangeSchema = Type.Object({
  range: Type.String(),
  prefix: Type.Integer(),
  region: Type.String(),
  route_target: Nullable(Type.String()),
});

/** `GET /compute/instances/{id}/ips`: an object, not a page. */
export const InstanceIpsSchema = Type.Object({
  ipv4: Type.Object({
    public: Type.Array(IpAddressSchema),
    private: Type.Array(IpAddressPrivateSchema),
    shared: Type.Array(IpAddressSchema),
    reserved: Type.Array(IpAddressSchema),
    vpc: Type.Array(VpcIpSchema),
  }),
  ipv6: Type.Object({
    link_local: IpAddressV6Schema,
    slaac: IpAddressV6Schema,
    global: Type.Array(Ipv6RangeSchema),
    /** The IPv6 ranges of the instance's VPC interfaces (as `GET /vpcs/ipv6s` lists them). */
    vpc: Type.Array(VpcIpv6Schema),
  }),
});

export const AddIpBody = Type.Object({
  type: Type.String({ description: 'ipv4 (the only type added)' }),
  public: Type.Boolean(),
  /** A reserved, unassigned address of the account in the instance's region. */
  address: Type.Optional(Nullable(Type.String())),
});

export const ComputeIpParams = Type.Object({ computeId: Type.Integer(), address: Type.String() });
