import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Nullable } from '../../http/schemas/common.js';

/** `Promotion`: amounts are decimal strings ("10.00"). Stratus runs no promotions (always []). */
export const PromotionSchema = Type.Object({
  credit_monthly_cap: Type.String(),
  credit_remaining: Type.String(),
  description: Type.String(),
  expire_dt: DateTime(),
  image_url: Type.String(),
  service_type: Type.String({
    enum: [
      'all',
      'backup',
      'blockstorage',
      'db_mysql',
      'ip_v4',
      'compute',
      'compute_disk',
      'compute_memory',
      'longview',
      'managed',
      'nodebalancer',
      'objectstorage',
      'transfer_tx',
    ],
  }),
  summary: Type.String(),
  this_month_credit_remaining: Type.String(),
});

export const AccountSchema = Type.Object({
  active_promotions: Type.Array(PromotionSchema),
  active_since: DateTime(),
  address_1: Type.String(),
  address_2: Type.String(),
  balance: Type.Number(),
  balance_uninvoiced: Type.Number(),
  billing_source: Type.String({ enum: ['partner', 'compute'] }),
  capabilities: Type.Array(Type.String()),
  city: Type.String(),
  company: Type.String(),
  country: Type.String(),
  credit_card: Type.Object({
    last_four: Nullable(Type.String()),
    expiry: Nullable(Type.String()),
  }),
  email: Type.String(),
  euuid: Type.String({ format: 'uuid' }),
  first_name: Type.String(),
  last_name: Type.String(),
  phone: Type.String(),
  state: Type.String(),
  tax_id: Type.String(),
  zip: Type.String(),
});
export type Account = Static<typeof AccountSchema>;

const text = (description: string) => Type.Optional(Type.String({ description }));
const NAME_RULE = 'must not contain < > ( ) " =';

/** PUT /account: every field optional; limits are checked in the service (all at once). */
export const AccountUpdateBody = Type.Object({
  address_1: text('At most 64 characters.'),
  address_2: text('At most 64 characters.'),
  city: text('At most 24 characters.'),
  company: text(`At most 128 characters; ${NAME_RULE}.`),
  country: text('Two-letter ISO 3166 country code.'),
  email: text('A valid email address, at most 128 characters.'),
  first_name: text(`At most 50 characters; ${NAME_RULE}.`),
  last_name: text(`At most 50 characters; ${NAME_RULE}.`),
  phone: text('At most 32 characters.'),
  state: text(
    'At most 24 characters. For US and CA only the two-letter state or province code (US military: AA, AE, AP).',
  ),
  tax_id: text('At most 25 characters; empty where the country collects no tax.'),
  zip: text('ASCII letters, digits and hyphens; at most 9 letters or digits.'),
});
export type AccountUpdate = Static<typeof AccountUpdateBody>;

/**
 * The account setting `interfaces_for_new_computes`: which interface generations a new instance
 * may have (`legacy_config`, `compute`) and which it gets when its create names none.
 */
export const INTERFACES_FOR_NEW_COMPUTES = [
  'legacy_config_only',
  'legacy_config_default_but_compute_allowed',
  'compute_default_but_legacy_config_allowed',
  'compute_only',
] as const;
export type InterfacesForNewComputes = (typeof INTERFACES_FOR_NEW_COMPUTES)[number];

export const AccountSettingsSchema = Type.Object({
  managed: Type.Boolean(),
  longview_subscription: Nullable(Type.String()),
  network_helper: Type.Boolean(),
  backups_enabled: Type.Boolean(),
  object_storage: Type.String({ enum: ['disabled', 'suspended', 'active'] }),
  maintenance_policy: Type.String(),
  /** What new instances get, and may ask for with `interface_generation` (compute area). */
  interfaces_for_new_computes: Type.String({ enum: [...INTERFACES_FOR_NEW_COMPUTES] }),
});
export type AccountSettings = Static<typeof AccountSettingsSchema>;

/** PUT /account/settings: the writable settings (Longview and Managed have their own endpoints). */
export const AccountSettingsUpdateBody = Type.Object({
  backups_enabled: Type.Optional(Type.Boolean()),
  network_helper: Type.Optional(Type.Boolean()),
  interfaces_for_new_computes: Type.Optional(
    Type.String({ enum: [...INTERFACES_FOR_NEW_COMPUTES] }),
  ),
  /** The default maintenance policy of new instances: a slug of `/maintenance/policies`. */
  maintenance_policy: Type.Optional(Type.String()),
});
export type AccountSettingsUpdate = Static<typeof AccountSettingsUpdateBody>;
