import { type Static, Type } from '@sinclair/typebox';
import { DateTime, PageOf } from '../../http/schemas/common.js';

export const UserDefinedFieldSchema = Type.Object({
  label: Type.String(),
  name: Type.String(),
  example: Type.String(),
  oneOf: Type.Optional(Type.String()),
  manyOf: Type.Optional(Type.String()),
  /** The real service's spelling of `oneOf`/`manyOf` (the wire; the Python SDK reads these). */
  oneof: Type.Optional(Type.String()),
  manyof: Type.Optional(Type.String()),
  default: Type.Optional(Type.String()),
  header: Type.Optional(Type.String()),
  required: Type.Optional(Type.String()),
});

export const StackScriptSchema = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  user_gravatar_id: Type.String(),
  label: Type.String(),
  description: Type.String(),
  images: Type.Array(Type.String()),
  deployments_total: Type.Integer(),
  deployments_active: Type.Integer(),
  is_public: Type.Boolean(),
  created: DateTime(),
  updated: DateTime(),
  rev_note: Type.String(),
  /** Marketplace fields: a StackScript of a user has no logo and no place in the catalogue. */
  logo_url: Type.String(),
  ordinal: Type.Integer(),
  script: Type.String(),
  user_defined_fields: Type.Array(UserDefinedFieldSchema),
  mine: Type.Boolean(),
});
export type ApiStackScript = Static<typeof StackScriptSchema>;

const Label = Type.String({ minLength: 3, maxLength: 128 });
const Images = Type.Array(Type.String(), { minItems: 1, maxItems: 100 });
const Script = Type.String({ minLength: 1, maxLength: 1_000_000 });
const Text = Type.String({ maxLength: 65535 });

export const CreateStackScriptBody = Type.Object({
  label: Label,
  description: Type.Optional(Text),
  images: Images,
  is_public: Type.Optional(Type.Boolean()),
  rev_note: Type.Optional(Text),
  script: Script,
});
export type CreateStackScript = Static<typeof CreateStackScriptBody>;

export const UpdateStackScriptBody = Type.Object({
  label: Type.Optional(Label),
  description: Type.Optional(Text),
  images: Type.Optional(Images),
  is_public: Type.Optional(Type.Boolean()),
  rev_note: Type.Optional(Text),
  script: Type.Optional(Script),
});
export type UpdateStackScript = Static<typeof UpdateStackScriptBody>;

export const StackScriptParams = Type.Object({ stackscriptId: Type.Integer() });
export const StackScriptPage = PageOf(StackScriptSchema);
