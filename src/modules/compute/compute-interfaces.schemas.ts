import { Type } from '@sinclair/typebox';
import { DateTime, Nullable } from '../../http/schemas/common.js';

/**
 * Interfaces of the new generation (`interface_generation: compute`): the instance's own public,
 * VPC and VLAN interfaces, as the provider's SDKs read and send them.
 */

/** A requested IPv6 range of an interface: `auto`, `/64` or a /64 of the subnet. */
const Ipv6RangeItem = Type.Object({ range: Type.Optional(Nullable(Type.String())) });

/** The `ipv6` of a VPC interface request: SLAAC ranges, routed ranges, public or not. */
export const InterfaceIpv6Body = Type.Object({
  slaac: Type.Optional(Nullable(Type.Array(Ipv6RangeItem))),
  ranges: Type.Optional(Nullable(Type.Array(Ipv6RangeItem))),
  is_public: Type.Optional(Nullable(Type.Boolean())),
});

/** A VPC interface's IPv6 as answered: each SLAAC /64 with the instance's address in it. */
export const InterfaceIpv6Schema = Type.Object({
  slaac: Type.Array(Type.Object({ range: Type.String(), address: Type.String() })),
  ranges: Type.Array(Type.Object({ range: Type.String() })),
  is_public: Type.Boolean(),
});

const DefaultRoute = Type.Object({
  ipv4: Type.Optional(Type.Boolean()),
  ipv6: Type.Optional(Type.Boolean()),
});

const PublicShape = Type.Object({
  ipv4: Type.Object({
    addresses: Type.Array(Type.Object({ address: Type.String(), primary: Type.Boolean() })),
    /** Addresses of other instances shared with this one (IP sharing). */
    shared: Type.Array(Type.Object({ address: Type.String(), compute_id: Type.Integer() })),
  }),
  ipv6: Type.Object({
    ranges: Type.Array(
      Type.Object({ range: Type.String(), route_target: Nullable(Type.String()) }),
    ),
    shared: Type.Array(
      Type.Object({ range: Type.String(), route_target: Nullable(Type.String()) }),
    ),
    slaac: Type.Array(Type.Object({ address: Type.String(), prefix: Type.Integer() })),
  }),
});

const VpcShape = Type.Object({
  vpc_id: Type.Integer(),
  subnet_id: Type.Integer(),
  ipv4: Type.Object({
    addresses: Type.Array(
      Type.Object({
        address: Type.String(),
        primary: Type.Boolean(),
        nat_1_1_address: Nullable(Type.String()),
      }),
    ),
    ranges: Type.Array(Type.Object({ range: Type.String() })),
  }),
  /** On a dual-stack subnet: its SLAAC /64 with the instance's address, routed /64s; else null. */
  ipv6: Nullable(InterfaceIpv6Schema),
});

const VlanShape = Type.Object({ vlan_label: Type.String(), ipam_address: Nullable(Type.String()) });

export const ComputeInterfaceSchema = Type.Object({
  id: Type.Integer(),
  mac_address: Type.String(),
  created: DateTime(),
  updated: DateTime(),
  /** One more at each change of the interface. */
  version: Type.Integer(),
  /** The IP families this interface is the default route of (`{}` for a VLAN interface). */
  default_route: DefaultRoute,
  public: Nullable(PublicShape),
  vpc: Nullable(VpcShape),
  vlan: Nullable(VlanShape),
});

export const ComputeInterfaceList = Type.Object({ interfaces: Type.Array(ComputeInterfaceSchema) });

const DefaultRouteInput = Type.Object({
  ipv4: Type.Optional(Nullable(Type.Boolean())),
  ipv6: Type.Optional(Nullable(Type.Boolean())),
});

const PublicInput = Type.Object({
  ipv4: Type.Optional(
    Nullable(
      Type.Object({
        addresses: Type.Optional(
          Nullable(
            Type.Array(
              Type.Object({
                /** One of the instance's public IPv4 addresses, or `auto` (a new one). */
                address: Type.Optional(Nullable(Type.String())),
                primary: Type.Optional(Nullable(Type.Boolean())),
              }),
            ),
          ),
        ),
      }),
    ),
  ),
  ipv6: Type.Optional(
    Nullable(
      Type.Object({
        ranges: Type.Optional(Nullable(Type.Array(Type.Object({ range: Type.String() })))),
      }),
    ),
  ),
});

const VpcIpv4Input = Type.Object({
  addresses: Type.Optional(
    Nullable(
      Type.Array(
        Type.Object({
          /** An address of the subnet, or `auto`. */
          address: Type.Optional(Nullable(Type.String())),
          primary: Type.Optional(Nullable(Type.Boolean())),
          /** `auto` (the instance's primary public IPv4), one of its public addresses, or null. */
          nat_1_1_address: Type.Optional(Nullable(Type.String())),
        }),
      ),
    ),
  ),
  ranges: Type.Optional(Nullable(Type.Array(Type.Object({ range: Type.String() })))),
});

const VlanInput = Type.Object({
  vlan_label: Type.String(),
  ipam_address: Type.Optional(Nullable(Type.String())),
});

/** One interface of an instance create (`interfaces[]` with `interface_generation: compute`). */
export const ComputeInterfaceCreateBody = Type.Object({
  firewall_id: Type.Optional(Nullable(Type.Integer())),
  default_route: Type.Optional(Nullable(DefaultRouteInput)),
  public: Type.Optional(Nullable(PublicInput)),
  vpc: Type.Optional(
    Nullable(
      Type.Object({
        subnet_id: Type.Integer(),
        ipv4: Type.Optional(Nullable(VpcIpv4Input)),
        ipv6: Type.Optional(Nullable(InterfaceIpv6Body)),
      }),
    ),
  ),
  vlan: Type.Optional(Nullable(VlanInput)),
});

export const ComputeInterfaceUpdateBody = Type.Object({
  default_route: Type.Optional(Nullable(DefaultRouteInput)),
  public: Type.Optional(Nullable(PublicInput)),
  vpc: Type.Optional(
    Nullable(
      Type.Object({
        /** A VPC interface stays in its subnet: a different one is refused. */
        subnet_id: Type.Optional(Nullable(Type.Integer())),
        ipv4: Type.Optional(Nullable(VpcIpv4Input)),
        /** Replaces the interface's IPv6 when given; omitted or null keeps it. */
        ipv6: Type.Optional(Nullable(InterfaceIpv6Body)),
      }),
    ),
  ),
});

export const InterfaceSettingsSchema = Type.Object({
  network_helper: Type.Boolean(),
  default_route: Type.Object({
    ipv4_interface_id: Nullable(Type.Integer()),
    ipv4_eligible_interface_ids: Type.Array(Type.Integer()),
    ipv6_interface_id: Nullable(Type.Integer()),
    ipv6_eligible_interface_ids: Type.Array(Type.Integer()),
  }),
});

export const InterfaceSettingsBody = Type.Object({
  network_helper: Type.Optional(Nullable(Type.Boolean())),
  default_route: Type.Optional(
    Nullable(
      Type.Object({
        ipv4_interface_id: Type.Optional(Nullable(Type.Integer())),
        ipv6_interface_id: Type.Optional(Nullable(Type.Integer())),
      }),
    ),
  ),
});

export const ComputeIdParams = Type.Object({ computeId: Type.Integer() });
export const ComputeInterfaceParams = Type.Object({
  computeId: Type.Integer(),
  interfaceId: Type.Integer(),
});

/** `POST …/upgrade-interfaces`: the profile whose interfaces become the instance's own. */
export const UpgradeInterfacesBody = Type.Object({
  config_id: Type.Optional(Nullable(Type.Integer())),
  dry_run: Type.Optional(Nullable(Type.Boolean())),
});

export const UpgradeInterfacesSchema = Type.Object({
  config_id: Type.Integer(),
  dry_run: Type.Boolean(),
  interfaces: Type.Array(ComputeInterfaceSchema),
});
