import type { EntityType } from '../../entities/entities.js';
import { endDeploymentOnInstanceDelete } from './stackscripts.deploy.js';
import { stackScriptLabels } from './stackscripts.repository.js';

/** StackScripts: `stackscript` in events and grants; an instance's deletion ends its deployment. */
export const stackScriptEntities: EntityType[] = [
  {
    type: 'stackscript',
    grant: 'stackscript',
    url: (id) => `/v4/compute/stackscripts/${id}`,
    list: stackScriptLabels,
    onDeleteOf: { compute: endDeploymentOnInstanceDelete },
  },
];
