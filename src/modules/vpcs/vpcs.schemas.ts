import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Nullable, PageOf } from '../../http/schemas/common.js';
import { VpcIpSchema } from '../compute/ips.schemas.js';
import { DESCRIPTION_MAX, LABEL_MAX } from './vpcs.rules.js';

const Label = Type.String({ minLength: 1, maxLength: LABEL_MAX });
const Description = Type.String({ maxLength: DESCRIPTION_MAX });

export const SubnetSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  ipv4: Type.String(),
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
  subnets: Type.Array(SubnetSchema),
  created: DateTime(),
  updated: Nullable(DateTime()),
});

export const CreateSubnetBody = Type.Object({ label: Label, ipv4: Type.String() });
export type CreateSubnet = Static<typeof CreateSubnetBody>;

export const CreateVpcBody = Type.Object({
  label: Label,
  region: Type.String(),
  description: Type.Optional(Description),
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
export const VpcDefaultRangesSchema = Type.Object({
  default_ipv4_ranges: Type.Array(Type.String()),
  forbidden_ipv4_ranges: Type.Array(Type.String()),
});
export type ApiVpcIp = Static<typeof VpcIpSchema>;
