import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Nullable, PageOf } from '../../http/schemas/common.js';

export const PROTOCOLS = ['http', 'https', 'tcp', 'udp'] as const;
/** `source` is for http/https/tcp only, `ring_hash` for udp only (nodebalancers.rules.ts). */
export const ALGORITHMS = ['roundrobin', 'leastconn', 'source', 'ring_hash'] as const;
/** `table`/`http_cookie` are for http/https/tcp, `session`/`source_ip` for udp. */
export const STICKINESS = ['none', 'table', 'http_cookie', 'session', 'source_ip'] as const;
export const CHECKS = ['none', 'connection', 'http', 'http_body'] as const;
export const PROXY_PROTOCOLS = ['none', 'v1', 'v2'] as const;
export const CIPHER_SUITES = ['recommended', 'legacy'] as const;
export const NODE_MODES = ['accept', 'reject', 'drain', 'backup'] as const;
export const NODE_STATUSES = ['unknown', 'UP', 'DOWN'] as const;
/** NodeBalancer plans (src/modules/nodebalancers/nodebalancers.rules.ts prices them). */
export const NB_TYPES = ['common', 'premium'] as const;

const Enum = (values: readonly string[]) => Type.String({ enum: [...values] });
const Tags = Type.Array(Type.String({ minLength: 3, maxLength: 50 }));
const NbLabel = Type.String({
  minLength: 3,
  maxLength: 32,
  pattern: '^[a-zA-Z0-9-_]{3,32}$',
  errorMessage: 'Label must be 3-32 characters: letters, digits, - and _',
});
const NodeLabel = Type.String({
  minLength: 3,
  maxLength: 32,
  pattern: '^[a-zA-Z0-9-_.]{3,32}$',
  errorMessage: 'Label must be 3-32 characters: letters, digits, -, _ and .',
});
const Throttle = Type.Integer({ minimum: 0, maximum: 20 });
const UdpThrottle = Type.Integer({
  minimum: 0,
  maximum: 20,
  description: 'new UDP sessions per second per client IP; 0 disables throttling',
});

export const NodeBalancerSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  region: Type.String(),
  hostname: Type.String(),
  ipv4: Type.String(),
  ipv6: Nullable(Type.String()),
  created: DateTime(),
  updated: DateTime(),
  client_conn_throttle: Type.Integer(),
  transfer: Type.Object({
    total: Nullable(Type.Number()),
    out: Nullable(Type.Number()),
    in: Nullable(Type.Number()),
  }),
  tags: Type.Array(Type.String()),
  type: Enum(NB_TYPES),
  client_udp_sess_throttle: Type.Integer(),
  frontend_address_type: Type.String({ enum: ['public', 'vpc'] }),
  frontend_vpc_subnet_id: Nullable(Type.Integer()),
  lke_cluster: Nullable(
    Type.Object({
      id: Type.Integer(),
      label: Type.String(),
      type: Type.String(),
      url: Type.String(),
    }),
  ),
  locks: Type.Array(Type.String()),
});
export type ApiNodeBalancer = Static<typeof NodeBalancerSchema>;
export const NodeBalancerPage = PageOf(NodeBalancerSchema);

/** Fields of a config that a request may set (create, update, rebuild, create with a NodeBalancer). */
const configFields = {
  port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
  protocol: Type.Optional(Enum(PROTOCOLS)),
  algorithm: Type.Optional(Enum(ALGORITHMS)),
  stickiness: Type.Optional(Enum(STICKINESS)),
  check: Type.Optional(Enum(CHECKS)),
  check_interval: Type.Optional(Type.Integer({ minimum: 2, maximum: 3600 })),
  check_timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 30 })),
  check_attempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 30 })),
  check_path: Type.Optional(
    Type.String({
      pattern: '^[a-zA-Z0-9\\/\\-%?&=.]*$',
      errorMessage: 'check_path may hold letters, digits and / - % ? & = .',
    }),
  ),
  check_body: Type.Optional(Type.String({ maxLength: 4096 })),
  check_passive: Type.Optional(Type.Boolean()),
  proxy_protocol: Type.Optional(Enum(PROXY_PROTOCOLS)),
  cipher_suite: Type.Optional(Enum(CIPHER_SUITES)),
  udp_check_port: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 65535, description: 'port of UDP health checks' }),
  ),
  ssl_cert: Type.Optional(Nullable(Type.String())),
  ssl_key: Type.Optional(Nullable(Type.String())),
};
export const ConfigBody = Type.Object(configFields);
export type ConfigInput = Static<typeof ConfigBody>;

export const NodeBody = Type.Object({
  address: Type.String({
    description:
      'private IPv4 address and port (e.g. 192.168.210.120:80), or a VPC address of the subnet given as subnet_id',
  }),
  label: NodeLabel,
  weight: Type.Optional(Type.Integer({ minimum: 1, maximum: 255 })),
  mode: Type.Optional(Enum(NODE_MODES)),
  subnet_id: Type.Optional(
    Type.Integer({
      description:
        "the subnet of one of the NodeBalancer's VPC configurations whose VPC address `address` is",
    }),
  ),
});
export type NodeInput = Static<typeof NodeBody>;
export const UpdateNodeBody = Type.Partial(NodeBody);
export type UpdateNodeInput = Static<typeof UpdateNodeBody>;

export const RebuildBody = Type.Object({
  ...configFields,
  nodes: Type.Array(Type.Object({ id: Type.Optional(Type.Integer()), ...NodeBody.properties })),
});
export type RebuildInput = Static<typeof RebuildBody>;

/** A VPC configuration at NodeBalancer create (the request shape of the provider's clients). */
export const NbVpcBody = Type.Object({
  subnet_id: Type.Integer(),
  ipv4_range: Type.Optional(
    Nullable(
      Type.String({
        description:
          'a /30 of the subnet for the NodeBalancer (chosen when omitted); with ipv4_range_auto_assign, a larger range of the subnet to choose the /30 from',
      }),
    ),
  ),
  ipv4_range_auto_assign: Type.Optional(
    Nullable(
      Type.Boolean({
        description: 'choose the /30 (inside ipv4_range when given; the default without it)',
      }),
    ),
  ),
  ipv6_range: Type.Optional(
    Nullable(
      Type.String({
        description:
          'a /64 of a dual-stack subnet for the NodeBalancer; chosen when omitted there (an IPv4-only subnet refuses it)',
      }),
    ),
  ),
});
export type NbVpcInput = Static<typeof NbVpcBody>;

export const CreateNodeBalancerBody = Type.Object({
  region: Type.String(),
  type: Type.Optional(Enum(NB_TYPES)),
  vpcs: Type.Optional(Type.Array(NbVpcBody)),
  label: Type.Optional(NbLabel),
  client_conn_throttle: Type.Optional(Throttle),
  client_udp_sess_throttle: Type.Optional(UdpThrottle),
  firewall_id: Type.Optional(Type.Integer()),
  tags: Type.Optional(Tags),
  configs: Type.Optional(
    Type.Array(Type.Object({ ...configFields, nodes: Type.Optional(Type.Array(NodeBody)) })),
  ),
});
export type CreateNodeBalancer = Static<typeof CreateNodeBalancerBody>;

export const UpdateNodeBalancerBody = Type.Object({
  label: Type.Optional(NbLabel),
  client_conn_throttle: Type.Optional(Throttle),
  client_udp_sess_throttle: Type.Optional(UdpThrottle),
  tags: Type.Optional(Tags),
});
export type UpdateNodeBalancer = Static<typeof UpdateNodeBalancerBody>;

export const ConfigSchema = Type.Object({
  id: Type.Integer(),
  port: Type.Integer(),
  protocol: Enum(PROTOCOLS),
  algorithm: Enum(ALGORITHMS),
  stickiness: Enum(STICKINESS),
  check: Enum(CHECKS),
  check_interval: Type.Integer(),
  check_timeout: Type.Integer(),
  check_attempts: Type.Integer(),
  check_path: Type.String(),
  check_body: Type.String(),
  check_passive: Type.Boolean(),
  proxy_protocol: Enum(PROXY_PROTOCOLS),
  cipher_suite: Enum(CIPHER_SUITES),
  nodebalancer_id: Type.Integer(),
  ssl_commonname: Type.String(),
  ssl_fingerprint: Type.String(),
  ssl_cert: Nullable(Type.String()),
  ssl_key: Nullable(Type.String()),
  nodes_status: Type.Object({ up: Type.Integer(), down: Type.Integer() }),
  udp_check_port: Type.Integer(),
  udp_session_timeout: Type.Integer(),
});
export type ApiConfig = Static<typeof ConfigSchema>;
export const ConfigPage = PageOf(ConfigSchema);

export const NodeSchema = Type.Object({
  id: Type.Integer(),
  address: Type.String(),
  label: Type.String(),
  status: Enum(NODE_STATUSES),
  weight: Type.Integer(),
  mode: Enum(NODE_MODES),
  config_id: Type.Integer(),
  nodebalancer_id: Type.Integer(),
  vpc_config_id: Nullable(Type.Integer()),
});
export type ApiNode = Static<typeof NodeSchema>;
export const NodePage = PageOf(NodeSchema);

export const StatsSchema = Type.Object({
  data: Type.Object({
    connections: Type.Array(Type.Array(Type.Number())),
    traffic: Type.Object({
      in: Type.Array(Type.Array(Type.Number())),
      out: Type.Array(Type.Array(Type.Number())),
    }),
  }),
  title: Type.String(),
});

export const NbVpcConfigSchema = Type.Object({
  id: Type.Integer(),
  nodebalancer_id: Type.Integer(),
  vpc_id: Type.Integer(),
  subnet_id: Type.Integer(),
  ipv4_range: Type.String(),
  /** The configuration's /64 in a dual-stack subnet; null in an IPv4-only one. */
  ipv6_range: Nullable(Type.String()),
});
export type ApiNbVpcConfig = Static<typeof NbVpcConfigSchema>;
export const NbVpcConfigPage = PageOf(NbVpcConfigSchema);

export const NbParams = Type.Object({ nodeBalancerId: Type.Integer() });
export const NbVpcParams = Type.Object({
  nodeBalancerId: Type.Integer(),
  vpcConfigId: Type.Integer(),
});
export const ConfigParams = Type.Object({
  nodeBalancerId: Type.Integer(),
  configId: Type.Integer(),
});
export const NodeParams = Type.Object({
  nodeBalancerId: Type.Integer(),
  configId: Type.Integer(),
  nodeId: Type.Integer(),
});
export const ComputeNbParams = Type.Object({ computeId: Type.Integer() });
