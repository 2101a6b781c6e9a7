import { type TSchema, Type } from '@sinclair/typebox';
import type { GrantType } from '../../auth/authz.js';
import { Nullable } from '../../http/schemas/common.js';

const PermissionSchema = Type.String({ enum: ['read_only', 'read_write'] });

/** GrantsResponse.global (every key of GlobalGrants). */
const GlobalSchema = Type.Object({
  account_access: Nullable(PermissionSchema),
  add_computes: Type.Boolean(),
  add_databases: Type.Boolean(),
  add_domains: Type.Boolean(),
  add_firewalls: Type.Boolean(),
  add_images: Type.Boolean(),
  add_longview: Type.Boolean(),
  add_nodebalancers: Type.Boolean(),
  add_stackscripts: Type.Boolean(),
  add_volumes: Type.Boolean(),
  add_vpcs: Type.Boolean(),
  cancel_account: Type.Boolean(),
  child_account_access: Type.Boolean(),
  longview_subscription: Type.Boolean(),
});

/** One array per grant type (GRANT_TYPES; the reference's keys, and ours also `firewall`). */
function perType<T extends TSchema>(item: T): Record<GrantType, T> {
  return {
    compute: item,
    database: item,
    domain: item,
    firewall: item,
    image: item,
    longview: item,
    nodebalancer: item,
    stackscript: item,
    volume: item,
    vpc: item,
  };
}

export const GrantSchema = Type.Object({
  id: Type.Integer(),
  permissions: Nullable(PermissionSchema),
  label: Type.String(),
});

export const GrantsSchema = Type.Object({
  global: Type.Object({
    ...GlobalSchema.properties,
    child_account_access: Nullable(Type.Boolean()),
  }),
  ...perType(Type.Array(GrantSchema)),
});

const GrantUpdateSchema = Type.Object({
  id: Type.Integer(),
  permissions: Nullable(PermissionSchema),
});

/** PUT …/grants: partial; omitted flags, types and entities keep their grants. */
export const GrantsUpdateBody = Type.Object({
  global: Type.Optional(Type.Partial(GlobalSchema)),
  ...perType(Type.Optional(Type.Array(GrantUpdateSchema))),
});
