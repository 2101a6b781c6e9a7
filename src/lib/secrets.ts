import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new random secret: 64 hex characters (256 bits), the form of the real service's tokens. */
export function newSecret(bytes = 32): string {
  return randomBytes(bytes).toString('hex');
}

/**
 * Tokens are stored only as this hash. SHA-256 suffices: tokens are 256-bit random values. Every
 * authenticated request computes one: the one-shot `hash` is a third of `createHash`'s cost.
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** Constant-time comparison of two hex hashes. */
export function hashesEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}
