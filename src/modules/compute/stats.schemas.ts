import { Type } from '@sinclair/typebox';

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
