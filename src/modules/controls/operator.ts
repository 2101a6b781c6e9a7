import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../db/database.js';
import { errors } from '../../errors/errors.js';
import { hashesEqual, hashSecret, newSecret } from '../../lib/secrets.js';
import { insertSettingOnce, readSetting, writeSetting } from './settings.js';

/**
 * The operator token guards the emulator controls (`/_stratus/*` but the probes and the docs).
 * `STRATUS_OPERATOR_TOKEN` sets it; otherwise the first start draws a random one, stores only
 * its hash (in `emulator_settings`, shared by every process) and prints it once, like the admin
 * token. `stratus operator-token` draws a new one. Reset and import leave it alone.
 */
export class OperatorAuth {
  constructor(
    private readonly db: Database,
    private readonly configured: string | undefined,
  ) {}

  /** On the first start: the new token (to print once), or undefined. */
  async ensure(): Promise<string | undefined> {
    if (this.configured) return undefined;
    const token = newSecret();
    return (await insertSettingOnce(this.db, 'operator_token', hashSecret(token)))
      ? token
      : undefined;
  }

  /** A new random token replacing the stored one (not when the environment sets it). */
  async rotate(): Promise<string> {
    if (this.configured) {
      throw new Error('STRATUS_OPERATOR_TOKEN is set: change the variable instead.');
    }
    const token = newSecret();
    await writeSetting(this.db, 'operator_token', hashSecret(token));
    return token;
  }

  async verify(token: string): Promise<boolean> {
    const given = hashSecret(token);
    if (this.configured) return hashesEqual(given, hashSecret(this.configured));
    const stored = await readSetting(this.db, 'operator_token');
    return stored !== undefined && hashesEqual(given, stored);
  }
}

/** The API reference (served by a plugin, so its routes carry no config of ours). */
function isDocsPath(path: string): boolean {
  return path === '/_stratus/docs' || path.startsWith('/_stratus/docs/');
}

/**
 * Whether a route needs `Authorization: Bearer <operator token>`: every `/_stratus/` route (by
 * its pattern: `//_stratus/reset` reaches the same route) but the API reference and the routes
 * that declare `config.operatorToken: false`. Decided once per route, when it is registered.
 */
export function guardsOperator(
  url: string,
  config: { operatorToken?: false } | undefined,
): boolean {
  return url.startsWith('/_stratus/') && config?.operatorToken !== false && !isDocsPath(url);
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The request gate's step of a route that `guardsOperator`: checks the operator token. */
export function operatorStep(auth: OperatorAuth) {
  return (req: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const m = BEARER.exec(req.headers.authorization ?? '');
    if (!m?.[1]) throw errors.invalidToken();
    return auth.verify(m[1]).then((ok) => {
      if (!ok) throw errors.invalidToken();
    });
  };
}
