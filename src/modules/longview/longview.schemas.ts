import { type Static, Type } from '@sinclair/typebox';
import { DateTime, IdParams, Nullable, PageOf } from '../../http/schemas/common.js';
import { LONGVIEW_SUBSCRIPTIONS } from './longview.data.js';

const Apps = Type.Object({
  apache: Type.Boolean(),
  nginx: Type.Boolean(),
  mysql: Type.Boolean(),
});

export const LongviewClientSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  api_key: Type.String({ description: '`[REDACTED]` without read_write access to the client.' }),
  install_code: Type.String({
    description: '`[REDACTED]` without read_write access to the client.',
  }),
  apps: Apps,
  created: DateTime(),
  updated: DateTime(),
});
export type ApiLongviewClient = Static<typeof LongviewClientSchema>;
export const LongviewClientPage = PageOf(LongviewClientSchema);

/**
 * The create answer: as recorded from the real service, `apps` there holds integers (0/1), not
 * the booleans every other answer has (docs/fidelity.md).
 */
export const CreatedLongviewClientSchema = Type.Object({
  ...LongviewClientSchema.properties,
  apps: Type.Object({
    apache: Type.Integer(),
    nginx: Type.Integer(),
    mysql: Type.Integer(),
  }),
});

const LABEL_RULE = '3 to 32 characters: letters, digits, "-" and "_"; unique in the account.';

export const CreateLongviewClientBody = Type.Object({
  label: Type.Optional(
    Nullable(Type.String({ description: `${LABEL_RULE} Default: longview<id>.` })),
  ),
});
export type CreateLongviewClient = Static<typeof CreateLongviewClientBody>;

export const UpdateLongviewClientBody = Type.Object({
  label: Type.Optional(Type.String({ description: LABEL_RULE })),
});

export const LongviewClientParams = IdParams('clientId');

const SUBSCRIPTION_IDS = LONGVIEW_SUBSCRIPTIONS.map((s) => s.id);

export const LongviewSubscriptionSchema = Type.Object({
  id: Type.String({ enum: SUBSCRIPTION_IDS }),
  label: Type.String(),
  clients_included: Type.Integer(),
  price: Type.Object({ hourly: Type.Number(), monthly: Type.Number() }),
});
export const LongviewSubscriptionPage = PageOf(LongviewSubscriptionSchema);

/** The plan: the subscription, or `{}` on Longview Free. */
export const LongviewPlanSchema = Type.Object({
  id: Type.Optional(LongviewSubscriptionSchema.properties.id),
  label: Type.Optional(Type.String()),
  clients_included: Type.Optional(Type.Integer()),
  price: Type.Optional(LongviewSubscriptionSchema.properties.price),
});

export const UpdateLongviewPlanBody = Type.Object({
  longview_subscription: Type.Optional(
    Nullable(
      Type.String({
        description: `${SUBSCRIPTION_IDS.join(', ')}; null (or "") for Longview Free. Absent: no change.`,
      }),
    ),
  ),
});

export const SubscriptionParams = Type.Object({ subscriptionId: Type.String() });
