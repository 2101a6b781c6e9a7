import { defineArea } from '../../platform/area.js';
import { catalogueModule } from '../catalogue/catalogue.module.js';
import { tagsRoutes } from './tags.routes.js';
import { TagsService } from './tags.service.js';

/** Account tags, over every entity type declared `taggable`. */
export const tagsModule = defineArea({
  name: 'tags',
  needs: [catalogueModule],
  tables: ['tags', 'entity_tags'],
  services: ({ db, clock, events, entities }, { catalogue: { catalogue } }) => ({
    tags: new TagsService({ db, clock, events, catalogue, entities }),
  }),
  api: (ctx) => [tagsRoutes(ctx)],
});
