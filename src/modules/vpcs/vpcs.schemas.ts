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

/** `regular`, or `rdma` (GPUDirect RDMA): set at create, shown on the VPC and its subnets. */
const VpcType = Type.Union([Type.Literal('regular'), Type.Literal('rdma')]);

export const SubnetSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  ipv4: Type.String(),
  ipv6: Ipv6Ranges,
  /** The VPC's type. */
  vpc_type: VpcType,
  computes: Type.Array(
    Type.Object({
      id: Type.Integer(),
      interfaces: Type.Array(
        Type.Object({
          active: Type.Boolean(),
          id: Type.Integer(),
          /** The profile of a profile interface; null for an instance's own interface. */
          config_id: Nullable(Type.Integer()),
        }),
      ),
    }),
  ),
  /** Managed databases in the subnet: Stratus serves none, so always empty. */
  databases: Type.Array(Type.Object({ id: Type.Integer() })),
  /** NodeBalancers with a VPC configuration in the subnet, and their ranges. */
  nodebalancers: Type.Array(
    Type.Object({
      id: Type.Integer(),
      ipv4_range: Type.String(),
      /** The configuration's IPv6 range in a dual-stack subnet (none otherwise). */
      ipv6_ranges: Type.Array(Type.Object({ range: Type.String() })),
    }),
  ),
  created: DateTime(),
  updated: Nullable(DateTime()),
});

export const VpcSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  description: Type.String(),
  region: Type.String(),
  /** The VPC's own IPv4 ranges, which its subnets lie in (the default ranges unless set). */
  ipv4: Type.Array(Type.Object({ range: Type.String() })),
  ipv6: Ipv6Ranges,
  vpc_type: VpcType,
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

/**
 * A VPC's own IPv4 ranges (regions with `Custom VPC IPv4 Ranges`), as the Go SDK sends them.
 * At most 16 (Stratus's bound: no client or recording shows one).
 */
const Ipv4Ranges = Type.Optional(
  Nullable(
    Type.Array(
      Type.Object({
        range: Type.Optional(Nullable(Type.String({ description: 'A CIDR, such as 10.0.0.0/16' }))),
      }),
      { maxItems: 16 },
    ),
  ),
);

export const CreateVpcBody = Type.Object({
  label: Label,
  region: Type.String(),
  description: Type.Optional(Description),
  /** `regular` (the default) or `rdma`; an RDMA VPC has no IPv6. */
  vpc_type: Type.Optional(Nullable(VpcType)),
  ipv4: Ipv4Ranges,
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
  /** Replaces the VPC's own IPv4 ranges; every subnet must still lie inside one. */
  ipv4: Ipv4Ranges,
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
