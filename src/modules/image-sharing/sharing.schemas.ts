import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Nullable, PageOf } from '../../http/schemas/common.js';

const Label = Type.String({ minLength: 1, maxLength: 128 });
const Description = Type.String({ maxLength: 65000 });

/** A group as its producer sees it (the recorded wire's shape). */
export const ShareGroupSchema = Type.Object({
  id: Type.Integer(),
  uuid: Type.String(),
  label: Type.String(),
  description: Type.String(),
  is_suspended: Type.Boolean(),
  images_count: Type.Integer(),
  members_count: Type.Integer(),
  created: DateTime(),
  updated: Nullable(DateTime()),
  expiry: Nullable(DateTime()),
});
export type ApiShareGroup = Static<typeof ShareGroupSchema>;
export const ShareGroupPage = PageOf(ShareGroupSchema);

/** A group as a member sees it through its token (the Go SDK's consumer shape). */
export const ConsumerShareGroupSchema = Type.Object({
  id: Type.Integer(),
  uuid: Type.String(),
  label: Type.String(),
  description: Type.String(),
  is_suspended: Type.Boolean(),
  created: DateTime(),
  updated: Nullable(DateTime()),
});
export type ApiConsumerShareGroup = Static<typeof ConsumerShareGroupSchema>;

/** An image shared in a group (`shared/<n>`): the image's record with the share's label. */
export const SharedImageSchema = Type.Object({
  id: Type.String(),
  label: Type.String(),
  description: Type.String(),
  created: DateTime(),
  updated: Nullable(DateTime()),
  created_by: Type.Null(),
  deprecated: Type.Boolean(),
  is_public: Type.Boolean(),
  size: Type.Integer(),
  total_size: Type.Integer(),
  type: Type.String({ enum: ['shared'] }),
  expiry: Nullable(DateTime()),
  eol: Nullable(DateTime()),
  vendor: Type.Null(),
  status: Type.String(),
  capabilities: Type.Array(Type.String()),
  tags: Type.Array(Type.String()),
  regions: Type.Array(Type.Object({ region: Type.String(), status: Type.String() })),
  is_shared: Type.Null(),
  image_sharing: Type.Object({
    shared_with: Type.Null(),
    shared_by: Type.Object({
      sharegroup_id: Type.Integer(),
      sharegroup_uuid: Type.String(),
      sharegroup_label: Type.String(),
      /** The producer's image (`private/<n>`); null in a member's view. */
      source_image_id: Nullable(Type.String()),
    }),
  }),
});
export type ApiSharedImage = Static<typeof SharedImageSchema>;
export const SharedImagePage = PageOf(SharedImageSchema);

export const MemberSchema = Type.Object({
  token_uuid: Type.String(),
  status: Type.String(),
  label: Type.String(),
  created: DateTime(),
  updated: Nullable(DateTime()),
  expiry: Nullable(DateTime()),
});
export type ApiMember = Static<typeof MemberSchema>;
export const MemberPage = PageOf(MemberSchema);

export const TokenSchema = Type.Object({
  token_uuid: Type.String(),
  status: Type.String({ enum: ['pending', 'active', 'revoked'] }),
  label: Type.String(),
  valid_for_sharegroup_uuid: Type.String(),
  created: DateTime(),
  updated: Nullable(DateTime()),
  expiry: Nullable(DateTime()),
  /** The group joined: null until the producer has added the token's member. */
  sharegroup_uuid: Nullable(Type.String()),
  sharegroup_label: Nullable(Type.String()),
});
export type ApiToken = Static<typeof TokenSchema>;
export const TokenPage = PageOf(TokenSchema);
export const CreatedTokenSchema = Type.Intersect([
  Type.Object({ token: Type.String({ description: 'The secret: shown once.' }) }),
  TokenSchema,
]);

const ImageToAdd = Type.Object({
  id: Type.String({ description: 'A private image of the account (`private/<n>`).' }),
  label: Type.Optional(Nullable(Label)),
  description: Type.Optional(Nullable(Description)),
});

export const CreateShareGroupBody = Type.Object({
  label: Label,
  description: Type.Optional(Nullable(Description)),
  images: Type.Optional(Nullable(Type.Array(ImageToAdd, { maxItems: 100 }))),
});
export type CreateShareGroup = Static<typeof CreateShareGroupBody>;
export const UpdateShareGroupBody = Type.Object({
  label: Type.Optional(Nullable(Label)),
  description: Type.Optional(Nullable(Description)),
});
export type UpdateShareGroup = Static<typeof UpdateShareGroupBody>;
export const AddImagesBody = Type.Object({
  images: Type.Array(ImageToAdd, { minItems: 1, maxItems: 100 }),
});
export type AddImages = Static<typeof AddImagesBody>;
export const UpdateShareBody = UpdateShareGroupBody;
export const AddMemberBody = Type.Object({
  token: Type.String({ maxLength: 256 }),
  label: Label,
});
export type AddMember = Static<typeof AddMemberBody>;
export const UpdateLabelBody = Type.Object({ label: Label });
export const CreateTokenBody = Type.Object({
  label: Type.Optional(Nullable(Label)),
  valid_for_sharegroup_uuid: Type.String({ maxLength: 64 }),
});
export type CreateToken = Static<typeof CreateTokenBody>;

export const GroupParams = Type.Object({ sharegroupId: Type.Integer() });
export const GroupShareParams = Type.Object({
  sharegroupId: Type.Integer(),
  imageId: Type.String(),
});
export const GroupSplitShareParams = Type.Object({
  sharegroupId: Type.Integer(),
  shareId: Type.String(),
});
export const GroupMemberParams = Type.Object({
  sharegroupId: Type.Integer(),
  tokenUuid: Type.String({ maxLength: 64 }),
});
export const TokenParams = Type.Object({ tokenUuid: Type.String({ maxLength: 64 }) });
export const ImageGroupsParams = Type.Object({ imageId: Type.String() });
export const ImageGroupsSplitParams = Type.Object({ vendor: Type.String(), name: Type.String() });
