import { createCipheriv, createDecipheriv, hash, randomBytes } from 'node:crypto';
import type { Database } from '../db/database.js';
import type { StateHook } from './state-hook.js';

const KEY_NAME = 'seal-v1';

/**
 * Encrypts the secrets Stratus must read back (object storage access-key secrets, which SigV4
 * needs to verify signatures, TLS private keys, TOTP secrets of two-factor sign-in): AES-256-GCM. The key is `STRATUS_ENCRYPTION_KEY`
 * when set (hashed to 256 bits), otherwise a random key generated once and kept in the database,
 * so that every process on the same database shares it.
 */
export class Sealer {
  private key: Buffer | undefined;

  constructor(
    private readonly db: Database,
    private readonly configured: string | undefined,
  ) {}

  private async loadKey(): Promise<Buffer> {
    if (this.key) return this.key;
    if (this.configured) {
      this.key = hash('sha256', this.configured, 'buffer') as Buffer;
      return this.key;
    }
    const fresh = randomBytes(32).toString('base64');
    await this.db.db
      .insertInto('obj_keyring')
      .values({ name: KEY_NAME, value: fresh })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const row = await this.db.db
      .selectFrom('obj_keyring')
      .select('value')
      .where('name', '=', KEY_NAME)
      .executeTakeFirstOrThrow();
    this.key = Buffer.from(row.value, 'base64');
    return this.key;
  }

  /**
   * Loads the key now. Call before a transaction that will seal or open: on SQLite the first
   * load's own query would wait for that transaction's connection.
   */
  async ready(): Promise<void> {
    await this.loadKey();
  }

  /**
   * Drops the cached key: after a reset or a snapshot import replaced the keyring's rows, the
   * next use reads (or makes) the key the database now holds.
   */
  forget(): void {
    if (!this.configured) this.key = undefined;
  }

  async seal(plain: string): Promise<string> {
    await this.loadKey();
    return this.sealNow(plain);
  }

  /**
   * Seals without waiting, for code that prepares rows synchronously inside a transaction; the
   * key must have been loaded first (`ready()`).
   */
  sealNow(plain: string): string {
    const key = this.key;
    if (!key) throw new Error('Sealer: call ready() before sealNow()');
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', key, iv);
    const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return `v1:${Buffer.concat([iv, c.getAuthTag(), body]).toString('base64')}`;
  }

  async open(sealed: string): Promise<string> {
    const key = await this.loadKey();
    const raw = Buffer.from(sealed.slice(3), 'base64');
    const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    d.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8');
  }
}

/** Reset and import replace the keyring's rows: the sealer forgets its key once they commit. */
export function sealerStateHook(sealer: Sealer): StateHook {
  const forget = async (tx: Database) => {
    tx.onCommit(() => sealer.forget());
  };
  return { name: 'sealer', onReset: forget, importData: forget };
}
