import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Nullable, PageOf } from '../../http/schemas/common.js';

const Policy = Type.String({ enum: ['ACCEPT', 'DROP'] });
const Protocol = Type.String({ enum: ['TCP', 'UDP', 'ICMP', 'IPENCAP'] });
const Addresses = Type.Object({
  ipv4: Type.Optional(Type.Array(Type.String())),
  ipv6: Type.Optional(Type.Array(Type.String())),
});

/** `FirewallRuleConfig` as answered: ports, label and description only when set. */
export const FirewallRuleSchema = Type.Object({
  protocol: Protocol,
  ports: Type.Optional(Nullable(Type.String())),
  addresses: Addresses,
  action: Policy,
  label: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
});

/**
 * A rule as sent: an ordinary rule (protocol, action and addresses: required, checked by the
 * service so that the error names the field) or `{ruleset: id}`, a reference to a rule set.
 */
export const FirewallRuleInput = Type.Object({
  protocol: Type.Optional(Protocol),
  ports: Type.Optional(Nullable(Type.String())),
  addresses: Type.Optional(Addresses),
  action: Type.Optional(Policy),
  label: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  /** A rule set of the account of the rule's direction: its rules apply in this place. */
  ruleset: Type.Optional(Type.Integer()),
});

/** An entry of a firewall's rules as answered: a rule, or `{ruleset}` alone. */
export const FirewallRuleEntrySchema = Type.Object({
  protocol: Type.Optional(Protocol),
  ports: Type.Optional(Nullable(Type.String())),
  addresses: Type.Optional(Addresses),
  action: Type.Optional(Policy),
  label: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  ruleset: Type.Optional(Type.Integer()),
});

export const FirewallRulesSchema = Type.Object({
  inbound: Type.Array(FirewallRuleSchema),
  outbound: Type.Array(FirewallRuleSchema),
  inbound_policy: Policy,
  outbound_policy: Policy,
});

const DeviceEntitySchema = Type.Object({
  id: Type.Integer(),
  type: Type.String({ enum: ['compute', 'nodebalancer', 'compute_interface'] }),
  /** null for an interface (`compute_interface`). */
  label: Nullable(Type.String()),
  url: Type.String(),
  /** An interface's instance; null for other devices. */
  parent_entity: Nullable(
    Type.Object({
      id: Type.Integer(),
      type: Type.String({ enum: ['compute'] }),
      label: Type.String(),
      url: Type.String(),
      parent_entity: Type.Null(),
    }),
  ),
});

/** The rules as answered: the rule sets and policies, with their version and fingerprint. */
export const FirewallRulesView = Type.Object({
  inbound: Type.Array(FirewallRuleEntrySchema),
  outbound: Type.Array(FirewallRuleEntrySchema),
  inbound_policy: Policy,
  outbound_policy: Policy,
  /** 1 at creation, one more at each change of the rules. */
  version: Type.Integer(),
  fingerprint: Type.String(),
});

export const FirewallSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  created: DateTime(),
  updated: DateTime(),
  status: Type.String({ enum: ['enabled', 'disabled', 'deleted'] }),
  rules: FirewallRulesView,
  tags: Type.Array(Type.String()),
  /** The services it covers (its devices' entities). */
  entities: Type.Array(DeviceEntitySchema),
});
export type ApiFirewall = Static<typeof FirewallSchema>;

export const FirewallPage = PageOf(FirewallSchema);

export const CreateFirewallBody = Type.Object({
  label: Type.String(),
  rules: Type.Object({
    inbound: Type.Optional(Type.Array(FirewallRuleInput)),
    outbound: Type.Optional(Type.Array(FirewallRuleInput)),
    inbound_policy: Policy,
    outbound_policy: Policy,
  }),
  devices: Type.Optional(
    Type.Object({
      computes: Type.Optional(Type.Array(Type.Integer())),
      nodebalancers: Type.Optional(Type.Array(Type.Integer())),
    }),
  ),
  tags: Type.Optional(Type.Array(Type.String())),
});
export type CreateFirewall = Static<typeof CreateFirewallBody>;

export const UpdateFirewallBody = Type.Object({
  label: Type.Optional(Type.String()),
  status: Type.Optional(Type.String({ enum: ['enabled', 'disabled'] })),
  tags: Type.Optional(Type.Array(Type.String())),
});
export type UpdateFirewall = Static<typeof UpdateFirewallBody>;

export const UpdateRulesBody = Type.Object({
  inbound: Type.Optional(Type.Array(FirewallRuleInput)),
  outbound: Type.Optional(Type.Array(FirewallRuleInput)),
  inbound_policy: Type.Optional(Policy),
  outbound_policy: Type.Optional(Policy),
});
export type UpdateRules = Static<typeof UpdateRulesBody>;

export const FirewallDeviceSchema = Type.Object({
  id: Type.Integer(),
  created: DateTime(),
  updated: DateTime(),
  entity: DeviceEntitySchema,
});
export type ApiFirewallDevice = Static<typeof FirewallDeviceSchema>;
export const FirewallDevicePage = PageOf(FirewallDeviceSchema);

export const AddDeviceBody = Type.Object({
  id: Type.Integer(),
  /** `compute_interface`: an instance's own interface (interface_generation compute). */
  type: Type.String({ enum: ['compute', 'nodebalancer', 'compute_interface'] }),
});

export const FirewallParams = Type.Object({ firewallId: Type.Integer() });
export const DeviceParams = Type.Object({ firewallId: Type.Integer(), deviceId: Type.Integer() });

/** `/_stratus/firewalls/{id}/evaluate`: what the rules do with one packet. */
export const EvaluateBody = Type.Object({
  direction: Type.String({ enum: ['inbound', 'outbound'] }),
  protocol: Protocol,
  port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
  address: Type.String({ description: 'the remote address: source inbound, destination outbound' }),
});
export type Evaluate = Static<typeof EvaluateBody>;

export const EvaluateResult = Type.Object({
  action: Policy,
  decided_by: Type.String({ enum: ['rule', 'policy', 'disabled'] }),
  rule_index: Nullable(Type.Integer()),
  rule: Nullable(FirewallRuleSchema),
  firewall_status: Type.String(),
});

export type ApiFirewallRules = Static<typeof FirewallRulesView>;

/** `GET …/history`: one entry per version of the rules (the firewall's status when it was made). */
export const RuleVersionEntrySchema = Type.Object({
  updated: DateTime(),
  status: Type.String({ enum: ['enabled', 'disabled'] }),
  rules: Type.Object({ version: Type.Integer() }),
});
export type ApiRuleVersionEntry = Static<typeof RuleVersionEntrySchema>;
export const RuleVersionPage = PageOf(RuleVersionEntrySchema);

export const RuleVersionParams = Type.Object({
  firewallId: Type.Integer(),
  version: Type.Integer(),
});

const DefaultIds = Type.Object({
  compute: Nullable(Type.Integer()),
  nodebalancer: Nullable(Type.Integer()),
  public_interface: Nullable(Type.Integer()),
  vpc_interface: Nullable(Type.Integer()),
});

/** `/networking/firewalls/settings`: the account's default firewalls (null: none). */
export const FirewallSettingsSchema = Type.Object({ default_firewall_ids: DefaultIds });
export type ApiFirewallSettings = Static<typeof FirewallSettingsSchema>;

export const UpdateFirewallSettingsBody = Type.Object({
  default_firewall_ids: Type.Optional(
    Type.Object({
      compute: Type.Optional(Nullable(Type.Integer())),
      nodebalancer: Type.Optional(Nullable(Type.Integer())),
      public_interface: Type.Optional(Nullable(Type.Integer())),
      vpc_interface: Type.Optional(Nullable(Type.Integer())),
    }),
  ),
});
export type UpdateFirewallSettings = Static<typeof UpdateFirewallSettingsBody>;

/** `/networking/firewalls/templates`: a template's slug and the rules a new firewall takes from it. */
export const FirewallTemplateSchema = Type.Object({
  slug: Type.String(),
  rules: FirewallRulesSchema,
});
export type ApiFirewallTemplate = Static<typeof FirewallTemplateSchema>;
export const FirewallTemplatePage = PageOf(FirewallTemplateSchema);
export const TemplateParams = Type.Object({ slug: Type.String() });

const RulesetType = Type.String({ enum: ['inbound', 'outbound'] });

/** `/networking/firewalls/rulesets`: a named, versioned list of rules of one direction. */
export const RulesetSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  description: Type.String(),
  type: RulesetType,
  rules: Type.Array(FirewallRuleSchema),
  /** Rule sets the service itself defines: none in Stratus. */
  is_service_defined: Type.Boolean(),
  /** 1 at creation, one more at each change of its rules. */
  version: Type.Integer(),
  created: DateTime(),
  updated: DateTime(),
  deleted: Nullable(DateTime()),
});
export type ApiRuleset = Static<typeof RulesetSchema>;
export const RulesetPage = PageOf(RulesetSchema);

export const CreateRulesetBody = Type.Object({
  label: Type.String(),
  description: Type.Optional(Type.String()),
  type: RulesetType,
  rules: Type.Array(FirewallRuleInput),
});
export type CreateRuleset = Static<typeof CreateRulesetBody>;

export const UpdateRulesetBody = Type.Object({
  label: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  rules: Type.Optional(Type.Array(FirewallRuleInput)),
});
export type UpdateRuleset = Static<typeof UpdateRulesetBody>;

export const RulesetParams = Type.Object({ rulesetId: Type.Integer() });
