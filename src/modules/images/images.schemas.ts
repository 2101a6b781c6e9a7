import { type Static, Type } from '@sinclair/typebox';
import { ImageSchema } from '../catalogue/catalogue.schemas.js';

const Label = Type.String({ minLength: 1, maxLength: 128 });
const Description = Type.String({ minLength: 1, maxLength: 65000 });
const Tags = Type.Array(Type.String({ minLength: 3, maxLength: 50 }));

export const CreateImageBody = Type.Object({
  disk_id: Type.Integer(),
  label: Type.Optional(Label),
  description: Type.Optional(Description),
  cloud_init: Type.Optional(Type.Boolean()),
  tags: Type.Optional(Tags),
});
export type CreateImage = Static<typeof CreateImageBody>;

export const UploadImageBody = Type.Object({
  region: Type.String(),
  label: Label,
  description: Type.Optional(Description),
  cloud_init: Type.Optional(Type.Boolean()),
  tags: Type.Optional(Tags),
});
export type UploadImage = Static<typeof UploadImageBody>;

export const UpdateImageBody = Type.Object({
  label: Type.Optional(Label),
  description: Type.Optional(Type.Union([Description, Type.Null()])),
  tags: Type.Optional(Tags),
});
export type UpdateImage = Static<typeof UpdateImageBody>;

/** `POST /images/{id}/regions`: the regions the image is to be stored in (adds and removes). */
export const ReplicateImageBody = Type.Object({
  regions: Type.Array(Type.String(), { maxItems: 100 }),
});
export type ReplicateImage = Static<typeof ReplicateImageBody>;

export const UploadImageResponse = Type.Object({
  upload_to: Type.String(),
  image: ImageSchema,
});

/** `private/<id>` arrives as one encoded segment or as two raw ones. */
export const ImageParams = Type.Object({ imageId: Type.String() });
export const SplitImageParams = Type.Object({ vendor: Type.String(), name: Type.String() });
export const UploadParams = Type.Object({ token: Type.String({ maxLength: 128 }) });
