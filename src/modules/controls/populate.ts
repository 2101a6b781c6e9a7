import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { ConfigError } from '../../config/config-error.js';
import { errors } from '../../errors/errors.js';
import type { InitHooks, InitRun, InitStage } from './init-hooks.js';
import { type Inject, seedRequests } from './seed.js';
import type { FirstStart } from './state.service.js';

export interface PopulateResult {
  /** The seed file's requests made. */
  requests: number;
  /** The init hooks' run (none without STRATUS_INIT_DIR). */
  init?: InitRun;
}

/**
 * What follows the first start and every full reset, once its transaction has committed: the
 * seed file's API requests, then the init hooks (STRATUS_INIT_DIR). A refused seed request
 * throws (a ConfigError naming it); the init run is returned whatever its outcome.
 */
export async function populate(
  init: InitHooks,
  stage: InitStage,
  target: { inject: Inject; baseUrl: string | undefined },
  seeded: FirstStart['seeded'],
): Promise<PopulateResult> {
  const requests = seeded ? await seedRequests(target.inject, seeded.file, seeded.tokens) : 0;
  const run = await init.run(stage, target);
  return { requests, ...(run ? { init: run } : {}) };
}

/**
 * A full reset's follow-up, for the controls' answer: a refused seed request or a failed init
 * hook is a 400 naming the cause (the reset itself has committed; the answer says so).
 */
export async function populateAfterReset(
  init: InitHooks,
  target: { inject: Inject; baseUrl: string | undefined },
  seeded: FirstStart['seeded'],
): Promise<PopulateResult> {
  let result: PopulateResult;
  try {
    result = await populate(init, 'reset', target, seeded);
  } catch (err) {
    if (err instanceof ConfigError) {
      throw errors.reason(`The state was reset, then ${err.message}`, 'reset_seed_failed');
    }
    throw err;
  }
  const failed = result.init?.files.find((f) => f.status === 'failed');
  if (failed) {
    throw errors.reason(
      `The state was reset, then init hook ${failed.file} failed: ${failed.error ?? 'failed'}` +
        (failed.output ? `; its output ends: ${failed.output.slice(-500)}` : ''),
      'reset_init_failed',
    );
  }
  return result;
}

/** The URL a process reaches its own listening server at (undefined: not listening). */
export function ownUrl(server: Server): string | undefined {
  const addr = server.address() as AddressInfo | string | null;
  if (addr === null || typeof addr === 'string') return undefined;
  const host =
    addr.address === '0.0.0.0' || addr.address === ''
      ? '127.0.0.1'
      : addr.address === '::'
        ? '::1'
        : addr.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${addr.port}`;
}
