import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, PageOf } from '../../http/schemas/common.js';

/** `[epoch_ms, value]` points, every 5 minutes. */
const Series = Type.Array(Type.Array(Type.Number()));
const NetSeries = Type.Object({
  in: Series,
  out: Series,
  private_in: Series,
  private_out: Series,
});

const StatsSeries = {
  cpu: Series,
  io: Type.Object({ io: Series, swap: Series }),
  netv4: NetSeries,
  netv6: NetSeries,
};

/**
 * `ComputeStats`: the series at the top level, as the reference declares them, and the same
 * series again under `data`, where the provider's Go and TypeScript clients read them.
 */
export const ComputeStatsSchema = Type.Object({
  title: Type.String(),
  ...StatsSeries,
  data: Type.Object(StatsSeries),
});

export const TransferSchema = Type.Object({
  used: Type.Integer({ description: 'Bytes sent this month.' }),
  quota: Type.Integer({ description: 'GB this instance adds to the transfer pool this month.' }),
  billable: Type.Integer({ description: 'GB over the quota.' }),
});

export const TransferMonthSchema = Type.Object({
  bytes_in: Type.Integer(),
  bytes_out: Type.Integer(),
  bytes_total: Type.Integer(),
});

/** Bounds are checked by the service, so that a bad month is a 400 naming the field. */
export const YearMonthParams = Type.Object({
  computeId: Type.Integer(),
  year: Type.Integer({ description: '2000 to 2037' }),
  month: Type.Integer({ description: '1 to 12' }),
});

const FirewallRule = Type.Object({
  protocol: Type.String({ enum: ['TCP', 'UDP', 'ICMP', 'IPENCAP'] }),
  ports: Nullable(Type.String()),
  addresses: Type.Object({ ipv4: Type.Array(Type.String()), ipv6: Type.Array(Type.String()) }),
  action: Type.String({ enum: ['ACCEPT', 'DROP'] }),
  label: Type.String(),
  description: Type.String(),
});

/** `Firewall` as listed on an instance (the firewall area owns the resource). */
export const InstanceFirewallSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  created: DateTime(),
  updated: DateTime(),
  status: Type.String({ enum: ['enabled', 'disabled', 'deleted'] }),
  rules: Type.Object({
    inbound: Type.Array(FirewallRule),
    outbound: Type.Array(FirewallRule),
    inbound_policy: Type.String({ enum: ['ACCEPT', 'DROP'] }),
    outbound_policy: Type.String({ enum: ['ACCEPT', 'DROP'] }),
  }),
  tags: Type.Array(Type.String()),
});

/** `NodeBalancer` as listed on an instance (the NodeBalancer area owns the resource). */
export const InstanceNodeBalancerSchema = Type.Object({
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
});

export const InstanceFirewallPage = PageOf(InstanceFirewallSchema);
export const InstanceNodeBalancerPage = PageOf(InstanceNodeBalancerSchema);
