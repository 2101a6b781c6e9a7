import { type TSchema, Type } from '@sinclair/typebox';
import { DateTime, Nullable, PageOf } from '../../http/schemas/common.js';
import { DEVICE_SLOTS } from './compute.repository.js';
import { InterfaceIpv6Body, InterfaceRequestSchema, InterfaceSchema } from './compute.schemas.js';

export const RUN_LEVELS = ['default', 'single', 'binbash'];
export const VIRT_MODES = ['paravirt', 'fullvirt'];

const Helpers = Type.Object({
  updatedb_disabled: Type.Boolean(),
  distro: Type.Boolean(),
  modules_dep: Type.Boolean(),
  network: Type.Boolean(),
  devtmpfs_automount: Type.Boolean(),
});

const slots = <T extends TSchema>(item: T) =>
  Type.Object(
    Object.fromEntries(DEVICE_SLOTS.map((s) => [s, item])) as Record<
      (typeof DEVICE_SLOTS)[number],
      T
    >,
  );

/** A slot as answered: the disk or the volume in it (the other null), or null when empty. */
const DeviceSchema = Nullable(
  Type.Object({ disk_id: Nullable(Type.Integer()), volume_id: Nullable(Type.Integer()) }),
);

export const ConfigSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  kernel: Type.String(),
  comments: Type.String(),
  memory_limit: Type.Integer(),
  run_level: Type.String({ enum: RUN_LEVELS }),
  virt_mode: Type.String({ enum: VIRT_MODES }),
  root_device: Type.String(),
  helpers: Helpers,
  devices: slots(DeviceSchema),
  interfaces: Type.Array(InterfaceSchema),
  initrd: Nullable(Type.Integer()),
  created: DateTime(),
  updated: DateTime(),
});

/** A slot as sent: `{disk_id}` or `{volume_id}`, or null (or omitted) for an empty slot. */
const DeviceRequest = Nullable(
  Type.Object({
    disk_id: Type.Optional(Nullable(Type.Integer())),
    volume_id: Type.Optional(Nullable(Type.Integer())),
  }),
);
export const DevicesRequest = slots(Type.Optional(DeviceRequest));

/** An interface as sent to a config; `active` is accepted and ignored (a reboot activates). */
export const AddInterfaceBody = InterfaceRequestSchema;

const configFields = {
  label: Type.String({ minLength: 1, maxLength: 48 }),
  devices: DevicesRequest,
  kernel: Type.Optional(Type.String()),
  comments: Type.Optional(Nullable(Type.String())),
  memory_limit: Type.Optional(Type.Integer({ minimum: 0 })),
  root_device: Type.Optional(Type.String()),
  run_level: Type.Optional(Type.String({ enum: RUN_LEVELS })),
  virt_mode: Type.Optional(Type.String({ enum: VIRT_MODES })),
  helpers: Type.Optional(Type.Partial(Helpers)),
  // null (as some clients send for "not set") counts as omitted.
  interfaces: Type.Optional(Nullable(Type.Array(AddInterfaceBody, { maxItems: 3 }))),
};

export const CreateConfigBody = Type.Object(configFields);
export const UpdateConfigBody = Type.Partial(Type.Object(configFields));

export const ConfigParams = Type.Object({ computeId: Type.Integer(), configId: Type.Integer() });
export const ConfigPage = PageOf(ConfigSchema);

// ---- config interfaces ----

export const InterfaceParams = Type.Object({
  computeId: Type.Integer(),
  configId: Type.Integer(),
  interfaceId: Type.Integer(),
});
export const InterfaceList = Type.Array(InterfaceSchema);

/**
 * `primary`, and for vpc interfaces `ipv4` and `ip_ranges`. Other fields (`purpose`,
 * `subnet_id`, …) are not part of the body and are dropped, so they never change.
 */
export const UpdateInterfaceBody = Type.Object({
  primary: Type.Optional(Type.Boolean()),
  ipv4: Type.Optional(
    Type.Object({
      vpc: Type.Optional(Nullable(Type.String())),
      nat_1_1: Type.Optional(Nullable(Type.String())),
    }),
  ),
  ip_ranges: Type.Optional(Nullable(Type.Array(Type.String()))),
  /** A VPC interface's IPv6 (dual-stack subnets): replaced when given, kept when omitted or null. */
  ipv6: Type.Optional(Nullable(InterfaceIpv6Body)),
});

export const OrderInterfacesBody = Type.Object({ ids: Type.Array(Type.Integer()) });
