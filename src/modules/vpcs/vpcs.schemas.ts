import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Nullable, PageOf } from '../../http/schemas/common.js';
import { VpcIpSchema, VpcIpv6Schema } from '../compute/ips.schemas.js';
import { DESCRIPTION_MAX, LABEL_MAX } from './vpcs.rules.js';

const Label = Type.String({ minLength: 1, maxLength: LABEL_MAX });
const Description = Type.String({ maxLength: DESCRIPTION_MAX });

/** An IPv6 range as answered; `ipv6` is null on an IPv4-only VPC or subnet (the wire). */
const Ipv6Ranges = Nullable(Type.Array(Type.Object({ range: Type.String() })));
/** A requested range: `auto`, a prefix length (`/52`) or a network (`2001:db8:8500::/52`). */
const Ipv6Range = Type.Optional(
  Nullable(Type.String({ description: '`auto`, a prefix length such as `/52`, or a network' })),
);

export const SubnetSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  ipv4: Type.String(),
  ipv6: Ipv6Ranges,
  computes: Type.Array(
    Type.Object({
      id: Type.Integer(),
      interfaces: Type.Array(Type.Object({ active: Type.Boolean(), id: Type.Integer() })),
    }),
  ),
  /** NodeBalancers with a VPC configuration in the subnet, and their ranges. */
  nodebalancers: Type.Array(Type.Object({ id: Type.Integer(), ipv4_range: Type.String() })),
  created: DateTime(),
  updated: Nullable(DateTime()),
});

export const VpcSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  description: Type.String(),
  region: Type.String(),
  ipv6: Ipv6Ranges,
  subnets: Type.Array(SubnetSchema),
  created: DateTime(),
  updated: Nullable(DateTime()),
});

export const CreateSubnetBody = Type.Object({
  label: Label,
  ipv4: Type.String(),
  /** At most one range, carved from the VPC's (a dual-stack VPC only). */
  ipv6: Type.Optional(Nullable(Type.Array(Type.Object({ range: Ipv6Range })))),
});
export type CreateSubnet = Static<typeof CreateSubnetBody>;

export const CreateVpcBody = Type.Object({
  label: Label,
  region: Type.String(),
  description: Type.Optional(Description),
  /** At most one range, from the region's VPC IPv6 pool (regions with `VPC Dual Stack`). */
  ipv6: Type.Optional(
    Nullable(
      Type.Array(
        Type.Object({
          range: Ipv6Range,
          /** Accepted and ignored: the console sends it; every range comes from one pool. */
          allocation_class: Type.Optional(Nullable(Type.String())),
        }),
      ),
    ),
  ),
  subnets: Type.Optional(Type.Array(CreateSubnetBody)),
});
export type CreateVpc = Static<typeof CreateVpcBody>;

export const UpdateVpcBody = Type.Object({
  label: Type.Optional(Label),
  description: Type.Optional(Description),
});
export type UpdateVpc = Static<typeof UpdateVpcBody>;

export const UpdateSubnetBody = Type.Object({ label: Type.Optional(Label) });

export const VpcParams = Type.Object({ vpcId: Type.Integer() });
export const SubnetParams = Type.Object({ vpcId: Type.Integer(), vpcSubnetId: Type.Integer() });
export const VpcPage = PageOf(VpcSchema);
export const SubnetPage = PageOf(SubnetSchema);
export const VpcIpPage = PageOf(VpcIpSchema);

export type ApiVpcIpv6 = Static<typeof VpcIpv6Schema>;
export const VpcIpv6Page = PageOf(VpcIpv6Schema);
export const VpcDefaultRangesSchema = Type.Object({
  default_ipv4_ranges: Type.Array(Type.String()),
  forbidden_ipv4_ranges: Type.Array(Type.String()),
});
export type ApiVpcIp = Static<typeof VpcIpSchema>;

/** Whether a region offers VPCs, and the VPC IPv6 prefix lengths still free in its pool. */
export const VpcAvailabilitySchema = Type.Object({
  region: Type.String(),
  available: Type.Boolean(),
  available_ipv6_prefix_lengths: Type.Array(Type.Integer()),
});
export type ApiVpcAvailability = Static<typeof VpcAvailabilitySchema>;
export const VpcAvailabilityPage = PageOf(VpcAvailabilitySchema);
export const RegionParams = Type.Object({ regionId: Type.String() });
