import type { Sealer } from '../../platform/sealer.js';
import { randomBytes } from 'node:crypto';
import type { Principal } from '../../auth/principal.js';
import { principalChanged } from '../../auth/principal-cache.js';
import type { Database } from '../../db/database.js';
import { errors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { hashSecret } from '../../lib/secrets.js';
import { isoSeconds } from '../../lib/time.js';
import type { EntityRef } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import { credentialsOf, saveCredentials } from './credentials.js';
import type { SecurityQuestionsService } from './security-questions.js';
import { newTotpSecret, totpStep } from './totp.js';

/** How long a secret from tfa-enable waits for its confirmation. */
const PENDING_MS = 60 * 60 * 1000;

const profileRef = (username: string): EntityRef => ({
  type: 'profile',
  id: null,
  label: username,
  url: '/v4/profile',
});

/** `/profile/tfa-*`: two-factor authentication of the sign-in page (TOTP, RFC 6238). */
export class TfaService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly events: EventWriter,
    /** TOTP secrets are stored sealed (AES-256-GCM), never in clear. */
    private readonly sealer: Sealer,
    /** The reference: security questions are answered before two-factor authentication. */
    private readonly questions: SecurityQuestionsService,
  ) {}

  /** A new secret to load into an authenticator app; it is on only once confirmed. */
  async enable(p: Principal): Promise<{ secret: string; expiry: string }> {
    const creds = await credentialsOf(this.db, p.userId);
    if (creds?.tfa_secret) throw errors.reason('Two-factor authentication is already enabled');
    if (!(await this.questions.answered(p.userId)))
      throw errors.reason(
        'Answer your security questions (POST /profile/security-questions) before enabling two-factor authentication',
      );
    const secret = newTotpSecret();
    const sealed = await this.sealer.seal(secret);
    const expiry = isoSeconds(this.clock.nowMs() + PENDING_MS);
    await this.db.transaction((tx) =>
      saveCredentials(tx, p.userId, { tfa_pending_secret: sealed, tfa_pending_expiry: expiry }),
    );
    return { secret, expiry };
  }

  /** Confirms with a current code; answers the one-time scratch code. Event `tfa_enabled`. */
  async confirm(p: Principal, code: string | undefined): Promise<{ scratch: string }> {
    if (code === undefined || code === '')
      throw errors.invalidField('tfa_code', 'tfa_code is required');
    const nowMs = this.clock.nowMs();
    await this.sealer.ready();
    return this.db.transaction(async (tx) => {
      const creds = await credentialsOf(tx, p.userId);
      if (creds?.tfa_secret) throw errors.reason('Two-factor authentication is already enabled');
      const pending = creds?.tfa_pending_secret;
      if (!pending || !creds.tfa_pending_expiry || creds.tfa_pending_expiry <= isoSeconds(nowMs))
        throw errors.reason('No two-factor secret awaits confirmation; call tfa-enable first');
      const step = totpStep(await this.sealer.open(pending), code, nowMs);
      if (step === undefined) throw errors.invalidField('tfa_code', 'Invalid Two Factor Code');
      const scratch = randomBytes(8).toString('hex');
      await saveCredentials(tx, p.userId, {
        tfa_secret: pending,
        tfa_pending_secret: null,
        tfa_pending_expiry: null,
        tfa_scratch_hash: hashSecret(scratch),
        tfa_last_step: step,
      });
      await this.setFlag(tx, p, 1, 'tfa_enabled');
      return { scratch };
    });
  }

  /** Turns two-factor authentication off. Event `tfa_disabled`. */
  async disable(p: Principal): Promise<void> {
    await this.db.transaction(async (tx) => {
      const creds = await credentialsOf(tx, p.userId);
      if (!creds?.tfa_secret) throw errors.reason('Two-factor authentication is not enabled');
      await saveCredentials(tx, p.userId, {
        tfa_secret: null,
        tfa_pending_secret: null,
        tfa_pending_expiry: null,
        tfa_scratch_hash: null,
        tfa_last_step: null,
      });
      await this.setFlag(tx, p, 0, 'tfa_disabled');
    });
  }

  private async setFlag(tx: Database, p: Principal, on: 0 | 1, action: string): Promise<void> {
    await tx.db
      .updateTable('users')
      .set({ two_factor_auth: on })
      .where('id', '=', p.userId)
      .execute();
    await principalChanged(tx, { kind: 'user', id: p.userId });
    await this.events.record(tx, {
      accountId: p.accountId,
      action,
      entity: profileRef(p.username),
      status: 'notification',
      username: p.username,
    });
  }
}
