import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import type { DeleteCascade } from '../../entities/entities.js';
import { errors, type FieldErrors } from '../../errors/errors.js';
import {
  ANY_IMAGE,
  findVisible,
  imagesOf,
  type StackScriptRow,
  udfsOf,
} from './stackscripts.repository.js';
import { checkUdfData } from './udf.js';

/** `stackscript_data`: valid JSON of at most 65,535 characters (spec). */
export const STACKSCRIPT_DATA_MAX = 65535;

function dataProblem(data: unknown): string | undefined {
  let text: string;
  try {
    text = JSON.stringify(data);
  } catch {
    return 'stackscript_data must be valid JSON';
  }
  if (text.length > STACKSCRIPT_DATA_MAX)
    return `stackscript_data must be at most ${STACKSCRIPT_DATA_MAX} characters`;
  return undefined;
}

/** A StackScript deployment that passed its checks: the script and the values it runs with. */
export interface StackScriptDeploy {
  script: StackScriptRow;
  data: Record<string, string>;
}

/**
 * The StackScript of an instance, disk (or rebuild) deployment, checked with the spec's rules:
 * `stackscript_data` is valid JSON within 65,535 characters and needs a `stackscript_id`; the
 * script is one the caller can see; it needs an image, never a private one, and one the script
 * lists (or `any/all`); the data satisfies the script's user-defined fields.
 */
export async function checkStackScript(
  db: Database,
  fe: FieldErrors,
  p: Principal,
  b: { stackscript_id?: number | null; stackscript_data?: unknown },
  imageId: string | null,
): Promise<StackScriptDeploy | undefined> {
  const hasId = b.stackscript_id !== undefined && b.stackscript_id !== null;
  const given = b.stackscript_data ?? undefined;
  if (given !== undefined) {
    const problem = dataProblem(given);
    if (problem) fe.add('stackscript_data', problem);
    else if (!hasId) fe.add('stackscript_data', 'stackscript_data needs a stackscript_id');
  }
  if (!hasId) return undefined;
  const script = await findVisible(db, p, b.stackscript_id as number);
  if (!script) {
    fe.add('stackscript_id', 'StackScript not found');
    return undefined;
  }
  if (imageId === null) {
    fe.add('image', 'An image is required to deploy a StackScript');
  } else if (imageId.startsWith('private/')) {
    fe.add('image', 'A StackScript cannot be deployed with a private image');
  } else {
    const images = imagesOf(script);
    if (!images.includes(ANY_IMAGE) && !images.includes(imageId))
      fe.add('image', `The StackScript does not support the image ${imageId}`);
  }
  const data = checkUdfData(
    fe,
    udfsOf(script),
    typeof given === 'object' && given !== null ? (given as Record<string, unknown>) : undefined,
  );
  return { script, data };
}

/**
 * Records that an instance now runs a StackScript (inside the deployment's transaction): the
 * script's `deployments_total` grows, and the instance counts in `deployments_active` until it is
 * deleted or deployed from another script.
 */
export async function recordDeployment(
  db: Database,
  deploy: StackScriptDeploy,
  instanceId: number,
  accountId: number,
  nowIso: string,
): Promise<void> {
  const bumped = await db.db
    .updateTable('stackscripts')
    .set((eb) => ({ deployments_total: eb('deployments_total', '+', 1) }))
    .where('id', '=', deploy.script.id)
    .executeTakeFirst();
  // Deleted since it was checked: the deployment is refused rather than half-written.
  if (Number(bumped.numUpdatedRows) === 0)
    throw errors.invalidField('stackscript_id', 'StackScript not found');
  await db.db.deleteFrom('stackscript_deployments').where('instance_id', '=', instanceId).execute();
  await db.db
    .insertInto('stackscript_deployments')
    .values({
      instance_id: instanceId,
      stackscript_id: deploy.script.id,
      account_id: accountId,
      data: JSON.stringify(deploy.data),
      created: nowIso,
    })
    .execute();
}

/** An instance's deletion ends its deployment (deployments_active). */
export const endDeploymentOnInstanceDelete: DeleteCascade = async (db, inst) => {
  await db.db.deleteFrom('stackscript_deployments').where('instance_id', '=', inst.id).execute();
};
