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

/**
 * Paths of `/_stratus/` that the operator token does not guard: the probes and the API reference,
 * and the services there that authenticate their callers themselves: the S3 data plane
 * (signatures of object storage keys), image uploads (the secret in the URL) and the firewall
 * evaluator (an API token with `firewall:read_only`).
 */
export function isOpenInternalPath(path: string): boolean {
  return (
    path === '/_stratus/health' ||
    path === '/_stratus/ready' ||
    path === '/_stratus/docs' ||
    path.startsWith('/_stratus/docs/') ||
    path === '/_stratus/s3' ||
    path.startsWith('/_stratus/s3/') ||
    path.startsWith('/_stratus/image-uploads/') ||
    /^\/_stratus\/firewalls\/[^/]+\/evaluate$/.test(path)
  );
}

/** onRequest: every other `/_stratus/` path needs `Authorization: Bearer <operator token>`. */
export function operatorHook(auth: OperatorAuth) {
  return (req: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void => {
    // The matched route, not the raw URL: `//_stratus/reset` reaches the same route.
    const path = req.routeOptions.url ?? '';
    // API requests pay one string test, no promise.
    if (!path.startsWith('/_stratus/') || isOpenInternalPath(path)) {
      done();
      return;
    }
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!m?.[1]) {
      done(errors.invalidToken());
      return;
    }
    auth.verify(m[1]).then(
      (ok) => done(ok ? undefined : errors.invalidToken()),
      (err: Error) => done(err),
    );
  };
}
