import type { EntityType } from '../../entities/entities.js';
import { imageLabels } from './images.repository.js';

/** Private images: `image` in events and grants (id: the n of `private/<n>`). */
export const imageEntities: EntityType[] = [
  {
    type: 'image',
    grant: 'image',
    url: (id) => `/v4/images/private/${id}`,
    list: imageLabels,
  },
];
